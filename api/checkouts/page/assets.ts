/**
 * The page's one stylesheet and one script, kept as strings so the build needs no copy step.
 * Plain CSS and ES5-level JavaScript: no framework, a few KB, cached by the browser (their URLs
 * change only with a deploy; max-age one hour).
 */

export const CHECKOUT_CSS = `*{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1f2328;background:#f4f5f7;line-height:1.5}
body{margin:0}
.brand{display:flex;align-items:center;gap:12px;padding:12px 16px;background:var(--brand);color:var(--on-brand)}
.logo{width:48px;height:48px;object-fit:contain;border-radius:8px;background:#fff}
.merchant{margin:0;font-weight:700;font-size:1.1rem}
main{max-width:560px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:8px 0}
h2{font-size:1.1rem;margin:0 0 8px}
.card{background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:16px;margin:16px 0}
.status{font-weight:600;padding:8px 12px;border-radius:8px;background:#fff8c5;border:1px solid #d4a72c}
.status.ok{background:#dafbe1;border-color:#1a7f37}
.status.closed{background:#ffebe9;border-color:#cf222e}
.items{width:100%;border-collapse:collapse}
.items th,.items td{text-align:left;padding:6px 4px;border-bottom:1px solid #eaeef2}
.items .num{text-align:right;white-space:nowrap}
.items tfoot th,.items tfoot td{font-weight:700;border-bottom:0;font-size:1.1rem}
.steps{padding-left:20px;margin:0 0 12px}
.qr{display:block;margin:8px auto;width:240px;height:240px;image-rendering:pixelated}
label{display:block;font-weight:600;margin:8px 0 4px}
.code{width:100%;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;padding:8px;border:1px solid #8c959f;border-radius:8px;resize:none;word-break:break-all;background:#f6f8fa;color:#1f2328}
button,.button{display:inline-block;margin-top:8px;padding:10px 16px;font:inherit;font-weight:600;border-radius:8px;border:2px solid var(--brand);background:var(--brand);color:var(--on-brand);cursor:pointer;text-decoration:none;min-height:44px}
button.secondary{background:#fff;color:#1f2328;border-color:#8c959f}
.dev{border-style:dashed}
.expires{font-size:.9rem;color:#57606a}
a{color:#0b4fb3}
.back{margin-top:24px}
:focus-visible{outline:3px solid #0b4fb3;outline-offset:2px}
.brand :focus-visible{outline-color:var(--on-brand)}
[hidden]{display:none!important}
`;

/**
 * The copy button of a page that shows a Pix code (the checkout's and the subscription's): shown
 * only when the script runs (without it, the field is still selectable). Needs the variables field and copy.
 */
export const COPY_BUTTON_JS = `  // Copy button: shown only when this script runs (without it, the field is still selectable).
  if (copy && field) {
    copy.hidden = false;
    copy.addEventListener('click', function () {
      field.focus();
      field.select();
      var done = function () { copy.textContent = 'Código copiado'; setTimeout(function () { copy.textContent = 'Copiar código'; }, 2500); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, function () { try { document.execCommand('copy'); done(); } catch (e) { /* the text stays selected */ } });
      } else {
        try { document.execCommand('copy'); done(); } catch (e) { /* the text stays selected */ }
      }
    });
  }`;

export const CHECKOUT_JS = `(function () {
  'use strict';
  var root = document.getElementById('checkout');
  if (!root) return;
  var live = document.getElementById('status');
  var field = document.getElementById('pix-code');
  var copy = document.getElementById('copy');

${COPY_BUTTON_JS}

  var statusUrl = root.getAttribute('data-status-url');
  var eventsUrl = root.getAttribute('data-events-url');
  if (!statusUrl) return; // paid, expired: nothing to follow
  var finished = false;

  function paid(completionUrl) {
    var title = document.getElementById('title');
    if (title) title.textContent = 'Pagamento confirmado';
    live.className = 'status ok';
    live.textContent = completionUrl ? 'Pagamento confirmado. Redirecionando…' : 'Pagamento confirmado. Obrigado!';
    var pix = document.getElementById('pix');
    if (pix) pix.hidden = true;
    var forms = document.querySelectorAll('form.dev');
    for (var i = 0; i < forms.length; i++) forms[i].hidden = true;
    if (completionUrl && /^https?:\\/\\//.test(completionUrl)) setTimeout(function () { window.location.assign(completionUrl); }, 1500);
  }

  function apply(state) {
    if (finished || !state || !state.status || state.status === 'PENDING') return;
    finished = true;
    if (source) source.close();
    if (state.status === 'PAID') paid(state.completionUrl);
    else window.location.reload(); // expired, cancelled: the server renders that page
  }

  function poll() {
    if (finished) return;
    var xhr = new XMLHttpRequest();
    xhr.open('GET', statusUrl);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.onload = function () { try { apply(JSON.parse(xhr.responseText)); } catch (e) { /* next poll */ } };
    xhr.onloadend = function () { if (!finished) setTimeout(poll, 3000); };
    xhr.send();
  }

  var source = null;
  if (window.EventSource && eventsUrl) {
    source = new EventSource(eventsUrl);
    source.addEventListener('status', function (ev) { try { apply(JSON.parse(ev.data)); } catch (e) { /* ignore */ } });
    // EventSource reconnects by itself after a dropped stream. A refused one (429 when the
    // checkout's or this address's streams are all open, or any answer but 200) is CLOSED, as is
    // one it gives up on: poll instead.
    source.onerror = function () { if (source.readyState === 2 && !finished) { source = null; poll(); } };
  } else {
    poll();
  }
})();
`;
