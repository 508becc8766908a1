// Loads this server's OpenAPI document and renders it with the embedded
// Swagger UI. When the document needs an API key (401), asks for one, keeps it
// in this tab's session storage and pre-authorises "Try it out" with it.
(function () {
  'use strict';

  var KEY_STORE = 'gleaner-api-key';
  var status = document.getElementById('gleaner-status');
  var form = document.getElementById('gleaner-key');
  var input = document.getElementById('gleaner-key-input');

  function say(text, isError) {
    status.textContent = text;
    status.hidden = false;
    status.classList.toggle('gleaner-error', Boolean(isError));
  }

  function storedKey() {
    try {
      return window.sessionStorage.getItem(KEY_STORE);
    } catch (e) {
      return null;
    }
  }

  function storeKey(key) {
    try {
      if (key) {
        window.sessionStorage.setItem(KEY_STORE, key);
      } else {
        window.sessionStorage.removeItem(KEY_STORE);
      }
    } catch (e) {
      // Storage disabled: the key lives until the page is left.
    }
  }

  function askForKey(refused) {
    say(refused
      ? 'The server refused that key (401). Enter a key from GLEANER_API_KEYS.'
      : 'The server requires an API key to show its API description.', refused);
    form.hidden = false;
    input.focus();
  }

  // The error text of a failed answer: the server's `error` or `message`, else the body.
  function reason(response) {
    return response.text().then(function (body) {
      var text = body;
      try {
        var json = JSON.parse(body);
        text = json.error || json.message || body;
      } catch (e) {
        // Not JSON: show the body as it is.
      }
      return 'HTTP ' + response.status + (text ? ': ' + text : '');
    });
  }

  function load(key) {
    var headers = { accept: 'application/json' };
    if (key) {
      headers['x-api-key'] = key;
    }
    say('Loading the API description…', false);
    fetch('openapi.json', { headers: headers, credentials: 'same-origin' })
      .then(function (response) {
        if (response.status === 401) {
          storeKey(null);
          askForKey(Boolean(key));
          return null;
        }
        if (!response.ok) {
          return reason(response).then(function (text) {
            throw new Error(text);
          });
        }
        return response.json();
      })
      .then(function (spec) {
        if (spec) {
          render(spec, key);
        }
      })
      .catch(function (e) {
        say('Could not load openapi.json from this server (' + e.message + '). '
          + 'Check that the server is running and reload the page.', true);
      });
  }

  function render(spec, key) {
    status.hidden = true;
    form.hidden = true;
    var ui = window.SwaggerUIBundle({
      spec: spec,
      dom_id: '#swagger-ui',
      layout: 'BaseLayout',
      presets: [window.SwaggerUIBundle.presets.apis],
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      defaultModelExpandDepth: 3,
      displayRequestDuration: true,
      filter: true,
      showExtensions: true,
      showCommonExtensions: true,
      persistAuthorization: false,
      tryItOutEnabled: false,
      validatorUrl: null
    });
    if (key) {
      var schemes = (spec.components && spec.components.securitySchemes) || {};
      Object.keys(schemes).forEach(function (name) {
        var scheme = schemes[name];
        if (scheme.type === 'apiKey' || (scheme.type === 'http' && scheme.scheme === 'bearer')) {
          ui.preauthorizeApiKey(name, key);
        }
      });
    }
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var key = input.value.trim();
    if (!key) {
      return;
    }
    storeKey(key);
    input.value = '';
    form.hidden = true;
    load(key);
  });

  if (typeof window.SwaggerUIBundle !== 'function') {
    say('The page could not start its renderer (docs/swagger-ui-bundle.js did not load).', true);
    return;
  }
  load(storedKey());
}());
