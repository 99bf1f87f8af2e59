/**
 * The subscription page's one script (served from /subscribe/assets/subscribe.js, so the CSP
 * allows only 'self'): the copy button, and while the payer has not authorised yet, a poll of
 * /subscribe/{id}/status that reloads the page once the state changes (the server renders it).
 * The stylesheet is the checkout page's (/c/assets/checkout.css).
 */
import { COPY_BUTTON_JS } from '../../checkouts/page/assets';

export const SUBSCRIBE_JS = `(function () {
  'use strict';
  var root = document.getElementById('subscription');
  if (!root) return;
  var field = document.getElementById('pix-code');
  var copy = document.getElementById('copy');
${COPY_BUTTON_JS}
  var statusUrl = root.getAttribute('data-status-url');
  var shown = root.getAttribute('data-status');
  if (!statusUrl) return;
  function poll() {
    var xhr = new XMLHttpRequest();
    xhr.open('GET', statusUrl);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.onload = function () {
      try {
        var state = JSON.parse(xhr.responseText);
        if (state && state.status && state.status !== shown) { window.location.reload(); return; }
      } catch (e) { /* next poll */ }
      setTimeout(poll, 5000);
    };
    xhr.onerror = function () { setTimeout(poll, 5000); };
    xhr.send();
  }
  setTimeout(poll, 5000);
})();
`;
