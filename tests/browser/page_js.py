"""JavaScript run inside JupyterLab's page by the browser tests (window.jupyterapp is exposed by the server flag
--LabApp.expose_app_in_browser=True). Kept in one place so the Python side stays readable."""

# Open a notebook through the document manager and remember its panel as window.__lnNb.
OPEN = """async (path) => {
  const app = window.jupyterapp;
  window.__lnNb = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  return true;
}"""

# Synchronous check: the notebook's kernel is connected and idle.
KERNEL_IDLE = """() => {
  const w = window.__lnNb;
  if (!w || !w.context || !w.context.isReady || !w.sessionContext) return false;
  const s = w.sessionContext.session;
  const k = s && s.kernel;
  return !!(k && k.connectionStatus === 'connected' && k.status === 'idle' && w.content.widgets.length > 0);
}"""

# Clear the stored outputs (so only fresh ones are checked), then Run All through the JupyterLab command.
RUN_ALL = """async () => {
  const app = window.jupyterapp;
  app.shell.activateById(window.__lnNb.id);
  await app.commands.execute('notebook:clear-all-cell-outputs');
  const t0 = performance.now();
  const ok = await app.commands.execute('notebook:run-all-cells');
  // tag every cell so Python can find a cell's DOM by its index
  window.__lnNb.content.widgets.forEach((c, i) => c.node.setAttribute('data-ln-cell', String(i)));
  return {ok: ok === true || ok === undefined, ms: performance.now() - t0};
}"""

# Everything is rendered: no widget placeholder left, every widget output has a view, every image settled.
SETTLED = """() => {
  const w = window.__lnNb;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  if (!k || k.status !== 'idle') return false;
  const node = w.content.node;
  if (node.textContent.includes('Loading widget')) return false;
  let wanted = 0;
  for (const cell of w.content.widgets) {
    if (cell.model.type !== 'code') continue;
    if (cell.model.executionCount === null) return false;
    for (let i = 0; i < cell.model.outputs.length; i++) {
      const data = cell.model.outputs.get(i).data || {};
      if (data['application/vnd.jupyter.widget-view+json']) wanted += 1;
    }
  }
  const views = node.querySelectorAll('.jp-OutputArea-output > .jupyter-widgets').length;
  if (views < wanted) return false;
  return [...node.querySelectorAll('img')].every(img => img.complete);
}"""

# Every figure <img> of the notebook has a non-empty alt (issue 27 item 5): stored and fresh outputs (the course's
# JupyterLab extension reads the output metadata) and explorer frames (it reads the Image widget's tooltip); and
# that alt is marked with the edition's language, `lang` ("zh-Hans": issue 41 item 4, JupyterLab's <html lang="en">
# made screen readers use an English voice; "en" in the English edition), by the image itself or the nearest element
# with a lang.
IMAGES_WITHOUT_ALT = """(lang) => {
  const missing = [];
  window.__lnNb.content.widgets.forEach((cell, i) => {
    for (const img of cell.node.querySelectorAll('.jp-OutputArea-output img')) {
      if (!(img.getAttribute('alt') || '').trim()) missing.push(`cell ${i}: figure without alt text`);
      else if (img.closest('[lang]')?.getAttribute('lang') !== lang)
        missing.push(`cell ${i}: alt text not marked lang="${lang}"`);
    }
  });
  return missing;
}"""

# Collect every problem a learner would see after Run All; `lang`: the one the figures' alt texts must be marked with.
PROBLEMS = """(lang) => {
  if (!lang) throw new Error('PROBLEMS needs the language the alt texts must be marked with');
  const w = window.__lnNb;
  const problems = [];
  let widgets = 0;
  w.content.widgets.forEach((cell, i) => {
    if (cell.model.type !== 'code') return;
    if (cell.model.executionCount === null) problems.push(`cell ${i}: not executed`);
    for (let j = 0; j < cell.model.outputs.length; j++) {
      const out = cell.model.outputs.get(j).toJSON();
      if (out.output_type === 'error') problems.push(`cell ${i}: error output ${out.ename}: ${out.evalue}`);
      if (out.output_type === 'stream' && out.name === 'stderr')
        problems.push(`cell ${i}: stderr output ${String(out.text).slice(0, 300)}`);
      if (out.data && out.data['application/vnd.jupyter.widget-view+json']) widgets += 1;
    }
  });
  const node = w.content.node;
  const stderr = node.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]');
  if (stderr.length) problems.push(`${stderr.length} stderr/error output(s) shown in the page: `
                                   + stderr[0].textContent.slice(0, 300));
  const text = node.textContent;  // not innerText: off-screen cells (content-visibility) have none
  if (text.includes('Error displaying widget')) problems.push('"Error displaying widget" shown');
  if (text.includes('Loading widget')) problems.push('"Loading widget…" still shown');
  const views = node.querySelectorAll('.jp-OutputArea-output > .jupyter-widgets').length;
  if (views !== widgets) problems.push(`${widgets} widget outputs but ${views} widget views rendered`);
  for (const img of node.querySelectorAll('img')) {
    if (!img.complete || img.naturalWidth === 0)
      problems.push(`image not loaded: ${img.getAttribute('src').slice(0, 120)}`);
  }
  problems.push(...(IMAGES_WITHOUT_ALT)(lang));
  return {problems, widgets, images: node.querySelectorAll('img').length,
          cells: w.content.widgets.length,
          height: Math.max(node.scrollHeight, ...[...node.querySelectorAll('.jp-WindowedPanel-outer, '
                           + '.jp-WindowedPanel-inner')].map(e => e.scrollHeight))};
}"""
PROBLEMS = PROBLEMS.replace("(IMAGES_WITHOUT_ALT)", f"({IMAGES_WITHOUT_ALT})")


# Scroll the notebook back to its first cell (for the full-page screenshot).
SCROLL_TOP = """() => {
  const node = window.__lnNb.content.node;
  for (const e of [node, ...node.querySelectorAll('.jp-WindowedPanel-outer')]) e.scrollTop = 0;
}"""

# Forget the notebook: no save dialog, shut its kernel down, close the tab.
CLOSE = """async () => {
  const w = window.__lnNb;
  if (!w) return;
  window.__lnNb = null;
  try { w.context.model.dirty = false; } catch (e) {}
  try { await w.sessionContext.shutdown(); } catch (e) {}
  w.dispose();
}"""

# --- explorers ------------------------------------------------------------------------------------------------

# The controls of one explorer, in DOM order, grouped by kind.
CONTROL_SELECTORS = {
    "text": ".widget-text, .widget-textarea",
    "slider": ".widget-slider",
    "toggle": ".widget-toggle-buttons",
    "dropdown": ".widget-dropdown",
    "checkbox": ".widget-checkbox",
}

CONTROLS = """([root, selectors]) => {
  const out = [];
  for (const [kind, sel] of Object.entries(selectors)) {
    root.querySelectorAll(sel).forEach((el, index) => {
      // a checkbox without indent keeps an empty '.widget-label' (a zero-width space); its words are beside the box
      const text = node => (node ? node.textContent.replace(/\u200b/g, '').trim() : '');
      const label = text(el.querySelector('.widget-label')) || text(el.querySelector('.widget-label-basic'));
      const input = el.querySelector('input, select, textarea, .noUi-handle');
      const buttons = [...el.querySelectorAll('button')];
      out.push({kind, index, label,
                disabled: !!(input && (input.disabled || input.hasAttribute('disabled')))
                          || (buttons.length > 0 && buttons.every(b => b.disabled)),
                options: kind === 'dropdown' ? [...el.querySelectorAll('option')].map(o => o.label) :
                         kind === 'toggle' ? buttons.map(b => b.textContent.trim()) : [],
                active: kind === 'toggle' ? buttons.findIndex(b => b.classList.contains('mod-active')) :
                        kind === 'dropdown' ? el.querySelector('select').selectedIndex : -1,
                at_max: kind === 'slider' ? (() => { const h = el.querySelector('.noUi-handle');
                  return !!h && h.getAttribute('aria-valuenow') === h.getAttribute('aria-valuemax'); })() : false,
                at_min: kind === 'slider' ? (() => { const h = el.querySelector('.noUi-handle');
                  return !!h && h.getAttribute('aria-valuenow') === h.getAttribute('aria-valuemin'); })() : false});
    });
  }
  return out;
}"""

# Arm a probe on one explorer: remember the outputs' signatures, record the time of every learner input event,
# and, on every DOM change or image load, check whether the expected state has been reached.
ARM = """([root, spec]) => {
  const sig = () => ({
    tables: [...root.querySelectorAll('table')].map(t => t.innerText).join('\\n---\\n'),
    images: [...root.querySelectorAll('img')].map(i => i.src).join(' '),
    html: [...root.querySelectorAll('.widget-html, .widget-htmlmath')].map(h => h.innerText).join('\\n---\\n'),
  });
  sig.any = (s) => s.tables + s.images + s.html;
  const before = sig();
  const probe = {t0: null, t1: null, inputs: [], lastMutation: performance.now(), before, scheduled: false};
  const imagesLoaded = () => [...root.querySelectorAll('img')].every(i => i.complete && i.naturalWidth > 0);
  probe.check = () => {
    const now = sig();
    const text = root.innerText;
    for (const s of spec.expect) if (!text.includes(s)) return false;
    for (const r of spec.expect_re) if (!(new RegExp(r)).test(text)) return false;
    for (const s of spec.absent) if (text.includes(s)) return false;
    for (const key of spec.changed) {
      if (key === 'any' ? sig.any(now) === sig.any(before) : now[key] === before[key]) return false;
    }
    for (const key of spec.unchanged) if (now[key] !== before[key]) return false;
    if (spec.changed.includes('images') && !imagesLoaded()) return false;
    return true;
  };
  // Done = the expected state holds in a frame that gets painted: the check runs in an animation-frame callback
  // (at most once per frame, however many DOM changes arrive: the probe's own work stays small), after new
  // images have loaded and decoded, and t1 is that frame's time.
  probe.poll = () => {
    if (probe.t1 === null && probe.inputs.length && !probe.scheduled) {
      probe.scheduled = true;
      requestAnimationFrame(() => {
        probe.scheduled = false;
        if (probe.t1 === null && probe.check()) probe.t1 = performance.now();
      });
    }
    return probe.t1 !== null;
  };
  const onInput = (e) => { probe.inputs.push(e.timeStamp); };
  const onChange = () => { probe.lastMutation = performance.now(); probe.poll(); };
  const obs = new MutationObserver(onChange);
  obs.observe(root, {subtree: true, childList: true, characterData: true, attributes: true});
  root.addEventListener('load', onChange, true);
  const kinds = ['keydown', 'mousedown', 'input', 'change'];
  for (const k of kinds) document.addEventListener(k, onInput, true);
  probe.disarm = () => {
    obs.disconnect();
    root.removeEventListener('load', onChange, true);
    for (const k of kinds) document.removeEventListener(k, onInput, true);
  };
  window.__lnProbe = probe;
  return probe.check();
}"""

# Done when the expected state was reached; latency = last learner input before that moment -> that moment.
PROBE_DONE = "() => window.__lnProbe.poll() && window.__lnProbe.check()"

PROBE_RESULT = """() => {
  const p = window.__lnProbe;
  p.disarm();
  const before = p.inputs.filter(t => t <= p.t1);
  const t0 = before.length ? before[before.length - 1] : null;
  return {latency_ms: (t0 === null || p.t1 === null) ? null : p.t1 - t0, inputs: p.inputs.length};
}"""

PROBE_FAIL_STATE = """([root]) => {
  const p = window.__lnProbe;
  if (p) p.disarm();
  return root.innerText.slice(0, 1500);
}"""

# Quiet: the kernel is idle and the explorer has not changed for `ms` milliseconds (no fixed sleep in Python).
QUIET = """([root, ms]) => {
  const w = window.__lnNb;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  if (!window.__lnQuiet || window.__lnQuiet.root !== root) {
    const q = {root, last: performance.now()};
    q.obs = new MutationObserver(() => { q.last = performance.now(); });
    q.obs.observe(root, {subtree: true, childList: true, characterData: true, attributes: true});
    if (window.__lnQuiet) window.__lnQuiet.obs.disconnect();
    window.__lnQuiet = q;
  }
  return !!k && k.status === 'idle' && performance.now() - window.__lnQuiet.last > ms
         && [...root.querySelectorAll('img')].every(i => i.complete);
}"""

# --- an explorer with no kernel behind it (issue 32) ------------------------------------------------------------

# Per explorer cell (by index): what its output shows. `notice` is the text of what is visible: the plain-text
# form (a notebook just opened is not trusted, so JupyterLab shows text/plain) or, for a rendered but disconnected
# explorer, its notice; `others` are the explorer's visible children besides the notice; `images` visible <img> and
# ipywidgets' broken-link icons (the ::before of a disconnected view).
EXPLORER_STATE = """(cells) => {
  const w = window.__lnNb;
  const out = {};
  for (const i of cells) {
    const cell = w.content.widgets[i];
    if (!cell) { out[i] = null; continue; }
    const area = cell.node.querySelector('.jp-OutputArea');
    const root = area && area.querySelector('.ln-explorer');
    const seen = (el) => el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null;
    if (!root) {
      out[i] = {rendered: false, text: area ? area.textContent.slice(0, 400) : '', others: [], images: 0};
      continue;
    }
    const notice = root.querySelector(':scope > .ln-offline');
    const words = (el) => { const c = el.cloneNode(true); c.querySelectorAll('style').forEach(s => s.remove());
                            return c.textContent; };  // the notice's words, without its style sheet
    out[i] = {rendered: true,
              disconnected: root.classList.contains('jupyter-widgets-disconnected'),
              text: notice && seen(notice) ? words(notice).slice(0, 400) : '',
              others: [...root.children].filter(c => c !== notice && seen(c)).map(c => c.className.slice(0, 80)),
              images: [...root.querySelectorAll('img')].filter(seen).length
                // ipywidgets' broken-link icon (a ::before on every disconnected view) counts as a broken image
                + [root, ...root.querySelectorAll('.jupyter-widgets-disconnected')].filter(el => {
                    const b = getComputedStyle(el, '::before');
                    return b.display !== 'none' && b.content && b.content !== 'none' && b.content !== 'normal';
                  }).length};
  }
  return out;
}"""

# Every cell of the list shows an output (stored outputs are drawn a moment after the notebook opens).
OUTPUTS_SHOWN = """(cells) => cells.every(i => {
  const c = window.__lnNb.content.widgets[i];
  const area = c && c.node.querySelector('.jp-OutputArea-output');
  return !!area && area.textContent.trim().length > 0;
})"""

# Restart the notebook's kernel (no dialog): what "Kernel → Restart Kernel" does once confirmed.
RESTART = "async () => { await window.__lnNb.sessionContext.session.kernel.restart(); return true; }"

# How the body cells of every table in the notebook's outputs are laid out (line height, font size, padding), for
# the static tables and the explorers' tables: the same metrics give rows of the same height for the same text.
CELL_METRICS = """() => {
  const out = {static: [], explorer: []};
  for (const t of window.__lnNb.content.node.querySelectorAll('.jp-OutputArea-output table')) {
    for (const c of t.querySelectorAll('tbody td, tbody th')) {
      const cs = getComputedStyle(c);
      (t.closest('.ln-explorer') ? out.explorer : out.static).push(
        [cs.lineHeight, cs.fontSize, cs.paddingTop, cs.paddingBottom].join(' '));
    }
  }
  return {static: [...new Set(out.static)], explorer: [...new Set(out.explorer)]};
}"""
