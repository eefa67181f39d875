// The page shown in a tab whose site screentime stopped: why, in a child's words (core.js).
'use strict';
const q = new URLSearchParams(location.search);
document.getElementById('why').textContent = screentimeCore.words(q.get('reason') ?? '', q.get('site') ?? 'This site');
