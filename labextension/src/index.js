// JupyterLab 4 draws an image output as <img> without its alt text, and ipywidgets' Image has no alt at all.
// This plugin gives both one: an image output takes the "alt" of its output metadata ({"image/png": {"alt": …}},
// which lnlib writes for every figure and nbconvert already reads); an explorer's picture (an ipywidgets Image
// inside `.ln-explorer`) takes its tooltip, which lnlib sets to the alt text of the frame shown.
import { IRenderMimeRegistry, RenderedImage, imageRendererFactory } from '@jupyterlab/rendermime';

// lnlib's alt texts are Simplified Chinese, while JupyterLab sets <html lang="en"> unless a language pack is
// installed: the lang attribute makes a screen reader read them with a Chinese voice, not an English one.
const ALT_LANG = 'zh-Hans';

class RenderedImageWithAlt extends RenderedImage {
  async render(model) {
    await super.render(model);
    const metadata = model.metadata[this.mimeType];
    const alt = metadata && typeof metadata === 'object' ? metadata.alt : undefined;
    const img = this.node.querySelector('img');
    if (img && typeof alt === 'string' && alt) {
      img.alt = alt;
      img.lang = ALT_LANG;
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
    img.setAttribute('lang', ALT_LANG);
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

const plugin = {
  id: 'lnlib-alt-text:plugin',
  description: 'Alt text for lnlib figures in JupyterLab: output metadata and explorer tooltips become <img alt>.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  activate: (app, rendermime) => {
    rendermime.addFactory(imageWithAltFactory, imageWithAltFactory.defaultRank);
    watchExplorerImages(document.body);
  }
};

export default plugin;
