// The page shown in a tab whose site screentime stopped: why, in a child's words (core.js), and,
// when game time is what is missing, a form to ask a parent for more (background.js passes it on).
'use strict';
const api = globalThis.browser ?? globalThis.chrome;
// The page's words in the browser's language (_locales/): each element with data-words gets its
// message; the English in stopped.html is only what a browser without them would show.
const say = (name, fills) => api.i18n.getMessage(name, fills);
document.documentElement.lang = api.i18n.getUILanguage();
for (const e of document.querySelectorAll('[data-words]'))
    e.textContent = say(e.dataset.words) || e.textContent;
const q = new URLSearchParams(location.search);
const reason = q.get('reason') ?? '';
const site = q.get('site') ?? say('thisSite');
document.getElementById('why').textContent = screentimeCore.words(reason, site, say);
document.title = say('notNowSite', [site]);

if (screentimeCore.canAsk(reason)) {
    const form = document.getElementById('ask');
    const send = document.getElementById('send');
    const said = document.getElementById('asked');
    form.hidden = false;
    document.getElementById('reason').focus();
    form.addEventListener('submit', async event => {
        event.preventDefault();
        send.disabled = true;
        let answer = null;
        try {
            answer = await api.runtime.sendMessage({
                type: 'ask',
                minutes: Number(document.getElementById('minutes').value),
                reason: document.getElementById('reason').value,
            });
        } catch (_) { /* the extension's background is gone: said below */ }
        said.textContent = screentimeCore.askWords(answer, say);
        // Once asked, the page says so; after a failure the child may try again.
        send.disabled = answer !== null && answer !== undefined && answer.asked === true;
    });
}
