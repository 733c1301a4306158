// JupyterLab 4 draws an image output as <img> without its alt text, and ipywidgets' Image has no alt at all.
// This plugin gives both one: an image output takes the "alt" of its output metadata ({"image/png": {"alt": …}},
// which lnlib writes for every figure and nbconvert already reads); an explorer's picture (an ipywidgets Image
// inside `.ln-explorer`) takes its tooltip, which lnlib sets to the alt text of the frame shown.
// It also replaces JupyterLab's English "Error displaying widget: model not found" of an explorer whose widget
// model is gone (a notebook saved, closed and opened again) by the explorer's notice, in the language of lnlib.
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry, MimeModel, RenderedImage, imageRendererFactory } from '@jupyterlab/rendermime';

// The lang of an alt text, so a screen reader picks the right voice (JupyterLab sets <html lang="en"> unless a
// language pack is installed): lnlib writes the language of an English figure's alt text into its metadata
// ({"alt_lang": "en"}) and gives an explorer's box the class ln-lang-<code>; Chinese is the default.
const LANGS = { zh: 'zh-Hans', en: 'en' };
const DEFAULT_LANG = LANGS.zh;

function explorerLang(img) {
  const box = img.closest('.ln-explorer');
  const code = box ? Object.keys(LANGS).find(c => box.classList.contains(`ln-lang-${c}`)) : undefined;
  return code ? LANGS[code] : DEFAULT_LANG;
}

class RenderedImageWithAlt extends RenderedImage {
  async render(model) {
    await super.render(model);
    const metadata = model.metadata[this.mimeType];
    const alt = metadata && typeof metadata === 'object' ? metadata.alt : undefined;
    const img = this.node.querySelector('img');
    if (img && typeof alt === 'string' && alt) {
      img.alt = alt;
      img.lang = LANGS[metadata.alt_lang] || DEFAULT_LANG;
    }
  }
}

const imageWithAltFactory = {
  safe: true,
  mimeTypes: imageRendererFactory.mimeTypes,
  defaultRank: imageRendererFactory.defaultRank,
  createRenderer: options => new RenderedImageWithAlt(options)
};

const EXPLORER_IMAGE = '.ln-explorer img.widget-image[title]';

// The tooltip of an explorer's picture becomes its alt text (and no hover box): ipywidgets writes the tooltip
// into the img's title, on first render and on every change.
function titleToAlt(img) {
  const title = img.getAttribute('title');
  if (title) {
    img.setAttribute('alt', title);
    img.setAttribute('lang', explorerLang(img));
    img.removeAttribute('title');
  }
}

function watchExplorerImages(root) {
  const observer = new MutationObserver(records => {
    for (const record of records) {
      if (record.type === 'attributes') {
        if (record.target.matches(EXPLORER_IMAGE)) titleToAlt(record.target);
        continue;
      }
      for (const node of record.addedNodes) {
        if (node.nodeType !== Node.ELEMENT_NODE) continue;
        if (node.matches(EXPLORER_IMAGE)) titleToAlt(node);
        node.querySelectorAll(EXPLORER_IMAGE).forEach(titleToAlt);
      }
    }
  });
  observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['title'] });
  root.querySelectorAll(EXPLORER_IMAGE).forEach(titleToAlt);
}

// --- an explorer whose widget model is gone -------------------------------------------------------------------
// A notebook's outputs name their widgets by model id. Saved, closed and opened again, the notebook has a new
// kernel and none of those models (JupyterLab does not save the widgets' state by default), and ipywidgets'
// renderer writes "Error displaying widget: model not found" in place of each explorer. lnlib gives every
// explorer's output an HTML form, a Chinese notice saying what to run (class ln-explorer-fallback, the form GitHub
// and an untrusted notebook show); this plugin shows that form in place of the error.
const MODEL_NOT_FOUND = 'Error displaying widget: model not found';
const FALLBACK_CLASS = 'ln-explorer-fallback';
const WIDGET_OUTPUT = '.jp-OutputArea-output.jupyter-widgets';

// The output model rendered into `node`: the notebook, the cell and the output whose view contains it.
function outputOf(tracker, node) {
  let found = null;
  tracker.forEach(panel => {
    if (found || !panel.content.node.contains(node)) return;
    for (const cell of panel.content.widgets) {
      const area = cell.outputArea;
      if (!area || !area.node.contains(node)) continue;
      area.widgets.forEach((child, i) => {
        if (!found && child.node.contains(node) && i < area.model.length) found = area.model.get(i);
      });
    }
  });
  return found;
}

function showFallback(tracker, rendermime, node) {
  if (node.dataset.lnFallback || node.textContent !== MODEL_NOT_FOUND) return;
  const output = outputOf(tracker, node);
  const html = output && output.data['text/html'];
  if (typeof html !== 'string' || !html.includes(FALLBACK_CLASS)) return;  // not an lnlib explorer
  node.dataset.lnFallback = 'shown';
  const renderer = rendermime.createRenderer('text/html');
  renderer
    .renderModel(new MimeModel({ data: { 'text/html': html }, trusted: output.trusted }))
    .then(() => node.replaceChildren(renderer.node));
}

function watchMissingWidgets(root, tracker, rendermime) {
  const check = node => {
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (node.matches(WIDGET_OUTPUT)) showFallback(tracker, rendermime, node);
    node.querySelectorAll(WIDGET_OUTPUT).forEach(n => showFallback(tracker, rendermime, n));
  };
  // ipywidgets sets the renderer's text first, then its class: both are done when the observer's callback runs
  const observer = new MutationObserver(records => {
    for (const record of records) {
      if (record.target.matches(WIDGET_OUTPUT)) showFallback(tracker, rendermime, record.target);
      record.addedNodes.forEach(check);
    }
  });
  observer.observe(root, { subtree: true, childList: true });
  check(root);
}

const plugin = {
  id: 'lnlib-alt-text:plugin',
  description:
    'Alt text for lnlib figures in JupyterLab (output metadata and explorer tooltips become <img alt>), and the ' +
    "Chinese notice of an explorer whose widget model is gone.",
  autoStart: true,
  requires: [IRenderMimeRegistry],
  optional: [INotebookTracker],  // an app without notebooks still gets the alt texts
  activate: (app, rendermime, tracker) => {
    rendermime.addFactory(imageWithAltFactory, imageWithAltFactory.defaultRank);
    watchExplorerImages(document.body);
    if (tracker) watchMissingWidgets(document.body, tracker, rendermime);
  }
};

export default plugin;
