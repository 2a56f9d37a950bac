// The page's first script, classic (not a module) and not bundled: it runs where the page's module cannot
// (opened from disk, file://) and says why nothing else will; elsewhere it reports a page script, style or
// start that failed, so the page never waits on "probing WebGPU… / loading…" with no word. main.ts sets
// <html data-app="started"> when its module runs and "ready" once the page is usable.
(function () {
  var root = document.documentElement;
  var shown = false;
  function show(title, why, details) {
    if (shown) return;
    shown = true;
    var box = document.querySelector('[data-testid="boot-error"]');
    if (!box) return;
    box.querySelector('[data-part="title"]').textContent = title;
    box.querySelector('[data-part="why"]').textContent = why;
    var d = box.querySelector('[data-part="details"]');
    if (details) d.querySelector('pre').textContent = details;
    d.hidden = !details;
    box.hidden = false;
    root.dataset.app = 'failed';
    if (!cssLoaded()) {
      // without the page's stylesheet (a file:// page cannot load it) the message alone, readable
      var main = document.querySelector('main');
      if (main) main.hidden = true;
      box.style.cssText = 'margin:16px;padding:12px 16px;border:2px solid #c33;border-radius:8px;font:16px/1.5 system-ui,sans-serif;max-width:60em';
    }
    var status = document.querySelector('[data-testid="status"]');
    if (status) {
      status.textContent = 'the page could not start (see the message above)';
      status.dataset.state = 'error';
    }
    var adapter = document.querySelector('[data-testid="adapter"]');
    if (adapter && /probing/.test(adapter.textContent)) adapter.textContent = 'not started';
    var infos = document.querySelectorAll('[data-testid="model-info"], [data-testid="latents-info"]');
    for (var i = 0; i < infos.length; i++) if (/loading/.test(infos[i].textContent)) infos[i].textContent = 'not loaded: the page could not start';
  }
  /** the page's stylesheet applied (its banners have a border then) */
  function cssLoaded() {
    var box = document.querySelector('[data-testid="boot-error"]');
    return !!box && getComputedStyle(box).borderTopStyle !== 'none';
  }
  function whenReady(f) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', f);
    else f();
  }
  if (location.protocol === 'file:') {
    whenReady(function () {
      show(
        'This page must be served over http(s); it cannot run opened from disk.',
        'It was opened as a file (' +
          location.href.slice(0, 120) +
          '). Browsers do not run module scripts or Web Workers from file:// pages, and WebGPU and the weights cache need http(s) or localhost. ' +
          'Serve this folder with any static web server and open its address, for example: python3 -m http.server 8000 (in this folder), then http://localhost:8000/.',
        '',
      );
    });
    return;
  }
  // a script or stylesheet of the page that failed to load (404, blocked): resource errors do not bubble, so capture
  window.addEventListener(
    'error',
    function (e) {
      var t = e.target;
      if (t && t !== window && (t.tagName === 'SCRIPT' || t.tagName === 'LINK') && root.dataset.app !== 'ready') {
        var url = t.src || t.href || '';
        whenReady(function () {
          show(
            'The page could not start: one of its files did not load.',
            'Reloading may help; if it does not, the site is missing a file of the build (deploy the whole folder, assets/ included).',
            'could not load ' + url,
          );
        });
      } else if (e instanceof ErrorEvent && !root.dataset.app) {
        // the module threw before it started (e.g. a browser too old for its code)
        var msg = e.message + (e.filename ? ' (' + e.filename + ':' + e.lineno + ')' : '');
        whenReady(function () {
          show('The page could not start: its code failed in this browser.', 'Use a recent Chrome, Edge, Safari or Firefox.', msg);
        });
      }
    },
    true,
  );
  // the module never ran and no error came (blocked without an event)
  window.addEventListener('load', function () {
    setTimeout(function () {
      if (!root.dataset.app)
        show(
          'The page could not start: its code did not run.',
          'Reload the page; if that does not help, the browser may be blocking its scripts.',
          'no start after the page loaded (html[data-app] unset)',
        );
    }, 10000);
  });
})();
