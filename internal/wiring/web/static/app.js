// annalist UI: a hash-routed single page over the JSON API under /v1.
// No framework and no build step; every element is built with the DOM API
// so no server text is ever parsed as HTML.

const main = document.getElementById('main');
const pop = document.getElementById('citepop');

// ---- settings and API access -------------------------------------------

function settings() {
  return {
    tenant: localStorage.getItem('annalist.tenant') || '',
    token: localStorage.getItem('annalist.token') || '',
  };
}

function headers(extra) {
  const s = settings();
  const h = Object.assign({ Accept: 'application/json' }, extra || {});
  if (s.tenant) h['X-Annalist-Tenant'] = s.tenant;
  if (s.token) h.Authorization = 'Bearer ' + s.token;
  return h;
}

class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(path, opts) {
  opts = opts || {};
  const init = { method: opts.method || 'GET', headers: headers(opts.headers) };
  if (opts.json !== undefined) {
    init.body = JSON.stringify(opts.json);
    init.headers['Content-Type'] = 'application/json';
  } else if (opts.body !== undefined) {
    init.body = opts.body;
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!res.ok) {
    const msg = (data && data.error) || text || res.statusText;
    throw new APIError(res.status, res.status + ': ' + msg.trim());
  }
  return data;
}

const enc = encodeURIComponent;

// ---- DOM helpers ----------------------------------------------------------

// h builds an element: h('a', {href: '#'}, 'text', child, …). Attributes
// starting with "on" are listeners; class is className.
function h(tag, attrs, ...kids) {
  const el = tag === 'svg' || (attrs && attrs.svg)
    ? document.createElementNS('http://www.w3.org/2000/svg', tag)
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'svg' || v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function s(tag, attrs, ...kids) {
  return h(tag, Object.assign({ svg: true }, attrs), ...kids);
}

// put replaces el's children, skipping null and false (replaceChildren
// would show them as text).
function put(el, ...kids) {
  el.replaceChildren(...kids.flat().filter((k) => k !== null && k !== undefined && k !== false));
}

function errorBox(err) {
  return h('p', { class: 'error', role: 'alert' }, String(err.message || err));
}

function setPage(title, ...kids) {
  hidePop();
  put(main, h('h1', null, title), ...kids);
  document.title = title + ' — annalist';
}

// ---- routing --------------------------------------------------------------

// Every route may return a cleanup function (timers, streams) that runs
// when the route changes.
let cleanup = null;

const routes = [
  [/^#\/entity\/(.+)$/, (m) => entityPage(decodeURIComponent(m[1]))],
  [/^#\/topic\/(.+)$/, (m) => topicPage(decodeURIComponent(m[1]))],
  [/^#\/answer\/(.+)$/, (m) => answerPage(decodeURIComponent(m[1]))],
  [/^#\/discussions$/, () => discussionsPage()],
  [/^#\/discussions\/(.+)$/, (m) => discussionPage(decodeURIComponent(m[1]))],
  [/^#\/ingest$/, () => ingestPage()],
  [/^#\/reviews$/, () => reviewsPage()],
  [/^#\/pipeline$/, () => pipelinePage()],
  [/^#\/dead-letters\/(.+)$/, (m) => deadLettersPage(decodeURIComponent(m[1]))],
  [/^(#\/?)?$/, () => searchPage()],
];

function route() {
  if (cleanup) { cleanup(); cleanup = null; }
  const hash = location.hash;
  for (const a of document.querySelectorAll('[data-nav]')) {
    const nav = a.getAttribute('data-nav');
    const active = nav === 'search' ? (hash === '' || hash === '#/' || hash.startsWith('#/entity/') || hash.startsWith('#/topic/') || hash.startsWith('#/answer/'))
      : nav === 'discussions' ? (hash === '#/discussions' || hash.startsWith('#/discussions/'))
        : hash === '#/' + nav;
    if (active) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  for (const [re, fn] of routes) {
    const m = hash.match(re);
    if (m) {
      const c = fn(m);
      if (typeof c === 'function') cleanup = c;
      return;
    }
  }
  setPage('Not found', h('p', null, 'No such page. ', h('a', { href: '#/' }, 'Search')));
}

// ---- search ---------------------------------------------------------------

// searchEntities asks the name and alias search; an API without it falls
// back to resolving the exact name.
async function searchEntities(q, limit) {
  try {
    const data = await api('/v1/entities?q=' + enc(q) + '&limit=' + (limit || 20));
    return (data && data.entities) || [];
  } catch (err) {
    if (err.status !== 404 && err.status !== 405) throw err;
  }
  try {
    const v = await api('/v1/entities/' + enc(q));
    return [{ id: v.id, name: v.name, type: v.type, aliases: v.aliases || [], matched: v.matched }];
  } catch (err) {
    if (err.status === 404) return [];
    throw err;
  }
}

// Entity types with a page of their own: a person has a biography; a
// place, an office, an era date or a glossary term has a topic page.
const topicTypes = new Set(['place', 'office', 'time', 'term']);

// resultHref is where a search result leads: a person to his biography
// (the entity page), a topic to its topic page, anything else to the
// entity page.
function resultHref(e) {
  return (topicTypes.has(e.type) ? '#/topic/' : '#/entity/') + enc(e.name);
}

const typeLabel = { person: 'person', place: 'place', office: 'office', time: 'era', term: 'term' };

function resultItem(e) {
  const others = (e.aliases || []).filter((a) => a !== e.name);
  const topic = topicTypes.has(e.type);
  return h('li', null,
    h('a', { href: resultHref(e), class: 'result' + (topic ? ' topic' : ''), 'data-type': e.type || '' },
      h('span', { class: 'name' }, e.name),
      h('span', { class: 'type' }, typeLabel[e.type] || e.type || ''),
      others.length ? h('span', { class: 'aliases' }, 'also ' + others.join(', ')) : null,
      e.matched && e.matched !== e.name ? h('span', { class: 'matched' }, 'matched ' + e.matched) : null,
      h('span', { class: 'leads muted small' }, topic ? 'topic page' : e.type === 'person' ? 'biography' : '')));
}

function searchPage() {
  const input = h('input', { id: 'q', type: 'search', name: 'q', autocomplete: 'off',
    placeholder: '陆文渊, 静之, 松江华亭, 嘉靖二十年, Ann Lee …', 'aria-describedby': 'q-help' });
  // People first, then topics (places, offices, eras, terms), each in
  // the search's order; #results holds both lists.
  const results = h('div', { id: 'results', 'aria-live': 'polite' });
  const status = h('p', { class: 'muted', id: 'search-status' });
  let timer = null;
  let seq = 0;
  let found = [];
  const run = async () => {
    const q = input.value.trim();
    const my = ++seq;
    if (!q) { put(results); status.textContent = ''; found = []; return; }
    try {
      const list = await searchEntities(q);
      if (my !== seq) return;
      const people = list.filter((e) => !topicTypes.has(e.type));
      const topics = list.filter((e) => topicTypes.has(e.type));
      found = people.concat(topics);
      status.textContent = list.length ? list.length + ' found' : 'Nothing named ' + q;
      put(results,
        h('p', null, h('a', { href: '#/answer/' + enc(q), id: 'answer-link', class: 'small' }, 'Answer “' + q + '” from the sources')),
        people.length ? h('h2', { id: 'people-h', class: 'rhead' }, 'People') : null,
        people.length ? h('ul', { class: 'results people', 'aria-labelledby': 'people-h' }, people.map(resultItem)) : null,
        topics.length ? h('h2', { id: 'topics-h', class: 'rhead' }, 'Topics') : null,
        topics.length ? h('ul', { class: 'results topics', id: 'topic-results', 'aria-labelledby': 'topics-h' },
          topics.map(resultItem)) : null);
    } catch (err) {
      if (my === seq) put(status, errorBox(err));
    }
  };
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(run, 200); });
  const form = h('form', { role: 'search', class: 'search', onsubmit: async (ev) => {
    ev.preventDefault();
    clearTimeout(timer);
    await run();
    if (found.length) location.hash = resultHref(found[0]);
  } },
  h('label', { for: 'q' }, 'Find a person, place, office, era or term by name or alias'),
  h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Search')),
  h('p', { id: 'q-help', class: 'muted' }, 'Courtesy names and other aliases work too. People open their biography; ',
    'places, offices, eras and terms open a topic page.'));
  setPage('Search', form, status, results);
  input.focus();
  return () => clearTimeout(timer);
}

// ---- entity page ----------------------------------------------------------

const statusLabel = {
  supported: 'supported',
  corrected: 'corrected',
  conflict: 'conflict',
};

// chunkMap turns the entity view's chunks (ids, or objects with text) into
// id → text.
function chunkMap(view) {
  const m = new Map();
  for (const c of (view && view.chunks) || []) {
    if (typeof c === 'string') continue;
    const id = c.chunk_id || c.ChunkID;
    const text = c.text || c.Text;
    if (id && text) m.set(id, text);
  }
  return m;
}

// highlightRanges finds, in rune offsets, where the sentence's fact values
// (and the citation's span, when it has one) occur in the chunk text.
function highlightRanges(chars, needles, span) {
  const ranges = [];
  const text = chars.join('');
  for (const n of needles) {
    if (!n) continue;
    let from = 0;
    for (;;) {
      const at = text.indexOf(n, from);
      if (at < 0) break;
      const start = Array.from(text.slice(0, at)).length;
      ranges.push([start, start + Array.from(n).length]);
      from = at + n.length;
    }
  }
  if (span && span.end > span.start && span.end <= chars.length && !ranges.length) {
    ranges.push([span.start, span.end]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push(r.slice());
  }
  return merged;
}

function markedText(text, needles, span) {
  const chars = Array.from(text);
  const ranges = highlightRanges(chars, needles, span);
  const out = [];
  let at = 0;
  for (const [a, b] of ranges) {
    if (a > at) out.push(chars.slice(at, a).join(''));
    out.push(h('mark', null, chars.slice(a, b).join('')));
    at = b;
  }
  if (at < chars.length) out.push(chars.slice(at).join(''));
  return out;
}

let popOwner = null;

// showPop shows the popup under marker: cite.label (else the chunk id),
// then cite.body() when given, else the cited text with its marks, in
// cite.lang (Chinese unless said).
function showPop(marker, cite) {
  popOwner = marker;
  let body;
  if (cite.body) body = cite.body();
  else if (cite.text) body = markedText(cite.text, cite.needles || [], cite.span);
  else body = h('em', null, cite.missing || 'chunk text not available');
  put(pop,
    h('div', { class: 'popid' }, cite.label || cite.chunkId),
    h('div', { class: 'poptext', lang: cite.lang || 'zh' }, body));
  pop.hidden = false;
  const r = marker.getBoundingClientRect();
  const width = Math.min(520, window.innerWidth - 24);
  pop.style.width = width + 'px';
  pop.style.left = Math.max(12, Math.min(r.left + window.scrollX, window.scrollX + window.innerWidth - width - 12)) + 'px';
  pop.style.top = (r.bottom + window.scrollY + 6) + 'px';
}

function hidePop(marker) {
  if (marker && popOwner !== marker) return;
  popOwner = null;
  pop.hidden = true;
}

document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') hidePop(); });

// citationMarker is a numbered marker (n: its text) that shows cite in the
// popup on hover, focus or click; extra adds or overrides attributes.
function citationMarker(n, cite, extra) {
  const b = h('button', Object.assign({ type: 'button', class: 'cite', 'aria-describedby': 'citepop',
    'aria-label': 'citation ' + n + ': ' + cite.chunkId, 'data-chunk': cite.chunkId }, extra || {}), String(n));
  b.addEventListener('mouseenter', () => showPop(b, cite));
  b.addEventListener('focus', () => showPop(b, cite));
  b.addEventListener('mouseleave', () => hidePop(b));
  b.addEventListener('blur', () => hidePop(b));
  b.addEventListener('click', () => (popOwner === b ? hidePop(b) : showPop(b, cite)));
  return b;
}

// renderSentences draws a page's sentences with numbered citation markers;
// numbers are per distinct chunk, in order of first citation.
function renderSentences(sentences, chunks, people) {
  const numbers = new Map();
  const ol = h('ol', { class: 'bio' });
  for (const [i, st] of sentences.entries()) ol.append(sentenceItem(st, i, numbers, chunks, people));
  return ol;
}

// linkedText writes a sentence with every person it names (people: the
// page's PersonRef list, whose surfaces the API found in the sentences'
// cited chunks) linked to the person's page, once per sentence (顾承泽,
// not his courtesy name after it too). At each place the longest surface
// wins (陆文渊 before 文渊).
function linkedText(text, people) {
  if (!people || !people.length) return [text];
  const byLength = people.slice().sort((a, b) => b.surface.length - a.surface.length);
  const linked = new Set();
  const out = [];
  let plain = '';
  let i = 0;
  while (i < text.length) {
    const p = byLength.find((x) => x.surface && text.startsWith(x.surface, i));
    if (!p) { plain += text[i]; i++; continue; }
    if (linked.has(p.entity)) { plain += p.surface; i += p.surface.length; continue; }
    linked.add(p.entity);
    if (plain) { out.push(plain); plain = ''; }
    out.push(h('a', { class: 'person', href: '#/entity/' + enc(p.link || p.name), 'data-entity': p.entity,
      title: p.name !== p.surface ? p.name : null }, p.surface));
    i += p.surface.length;
  }
  if (plain) out.push(plain);
  return out;
}

function sentenceItem(st, i, numbers, chunks, people) {
  const needles = [];
  for (const f of st.facts || []) {
    if (f.value) needles.push(f.value);
  }
  const marks = (st.citations || []).map((c) => {
    if (!numbers.has(c.chunk_id)) numbers.set(c.chunk_id, numbers.size + 1);
    const text = chunks.get(c.chunk_id) || c.text || '';
    return citationMarker(numbers.get(c.chunk_id), { chunkId: c.chunk_id, text, needles, span: c.span });
  });
  const status = st.status || 'supported';
  return h('li', { class: 'sentence s-' + status, 'data-index': st.index !== undefined ? st.index : i },
    h('span', { class: 'stext' }, linkedText(st.text, people)),
    h('span', { class: 'cites' }, marks),
    h('span', { class: 'badge b-' + status, title: st.note || '' }, statusLabel[status] || status),
    st.note ? h('span', { class: 'note' }, st.note) : null);
}

function entityPage(name) {
  const head = h('section', { class: 'entity-head' }, h('p', { class: 'muted' }, 'Loading…'));
  const bio = h('section', { class: 'bio-section', 'aria-labelledby': 'bio-h' });
  const live = h('section', { class: 'live', 'aria-live': 'polite', hidden: true });
  const hood = h('section', { class: 'hood', 'aria-labelledby': 'hood-h' });
  const hist = h('section', { class: 'history', 'aria-labelledby': 'hist-h' });
  const genBtn = h('button', { type: 'button', id: 'generate' }, 'Generate biography');
  setPage(name, head, h('div', { class: 'actions' }, genBtn, ' ',
    h('a', { href: '#/topic/' + enc(name), id: 'topic-link', class: 'small' }, 'Topic page about ' + name)), live,
    h('div', { class: 'cols' }, bio, h('div', null, hood, hist)));
  let chunks = new Map();
  let view = null;
  let stopStream = null;

  const loadPage = async () => {
    put(bio, h('h2', { id: 'bio-h' }, 'Biography'), h('p', { class: 'muted' }, 'Loading…'));
    let page;
    try {
      page = await api('/v1/pages/' + enc(name));
    } catch (err) {
      put(bio, h('h2', { id: 'bio-h' }, 'Biography'), err.status === 404
        ? h('p', { class: 'muted', id: 'no-page' }, 'No biography yet. Generate one.')
        : errorBox(err));
      put(hist);
      return;
    }
    const missing = new Set();
    for (const st of page.sentences || []) {
      for (const c of st.citations || []) if (!chunks.has(c.chunk_id) && !c.text) missing.add(c.chunk_id);
    }
    put(bio, 
      h('h2', { id: 'bio-h' }, 'Biography ', h('span', { class: 'muted' }, 'version ' + page.version)),
      renderSentences(page.sentences || [], chunks, (page.people || []).filter((p) => p.name !== page.subject)),
      (page.dropped || []).length ? h('details', { class: 'dropped' },
        h('summary', null, page.dropped.length + ' sentence(s) left out'),
        h('ul', null, page.dropped.map((d) => h('li', null, '#' + d.index + ': ' + d.reason)))) : null,
      page.generated_at ? h('p', { class: 'muted' }, 'Generated ' + page.generated_at) : null);
    renderHistory(hist, name, page.versions || []);
  };

  const loadView = async () => {
    try {
      view = await api('/v1/entities/' + enc(name) + '?text=1');
      chunks = chunkMap(view);
      const aliases = (view.aliases || []).filter((a) => a !== view.name);
      put(head, 
        h('p', null, h('span', { class: 'type' }, view.type || ''),
          view.name !== name ? h('span', null, ' ' + view.name) : null,
          aliases.length ? h('span', { class: 'aliases' }, ' also ' + aliases.join(', ')) : null),
        (view.candidates || []).length > 1 ? h('p', { class: 'muted' }, 'Also may denote: ',
          view.candidates.slice(1).map((c) => h('a', { href: '#/entity/' + enc(c.name) }, c.name + ' '))) : null);
    } catch (err) {
      put(head, errorBox(err));
    }
  };

  const loadHood = async () => {
    put(hood, h('h2', { id: 'hood-h' }, 'Knowledge graph'), h('p', { class: 'muted' }, 'Loading…'));
    let g = null;
    try {
      g = await api('/v1/entities/' + enc(name) + '/neighbourhood');
    } catch (err) {
      if (err.status !== 404 || !view) { hood.append(errorBox(err)); return; }
      g = { root: view.id, nodes: [{ id: view.id, name: view.name, type: view.type }], edges: view.edges || [] };
    }
    renderHood(hood, g);
  };

  genBtn.addEventListener('click', () => {
    if (stopStream) stopStream();
    generatePage(live, genBtn, 'biography', name,
      (list, d, numbers) => list.append(sentenceItem(d, d.index, numbers, chunks)),
      loadPage, (stop) => { stopStream = stop; });
  });

  (async () => {
    await loadView();
    await Promise.all([loadPage(), loadHood()]);
  })();
  return () => { if (stopStream) stopStream(); };
}

// ---- topic page -----------------------------------------------------------

// sectionAnchor is the id of a topic page's i-th section (0-based).
const sectionAnchor = (i) => 'sec-' + (i + 1);

// tocLink scrolls to a section without touching location.hash, which the
// router owns.
function tocLink(i, title) {
  return h('a', { href: '#' + sectionAnchor(i), onclick: (ev) => {
    ev.preventDefault();
    const target = document.getElementById(sectionAnchor(i));
    if (!target) return;
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
  } }, title);
}

// topicSections groups a page's sentences: its sections when it has them,
// else the sentences by their section title in order, else one untitled
// section.
function topicSections(page) {
  if ((page.sections || []).length) return page.sections;
  const out = [];
  const at = new Map();
  for (const st of page.sentences || []) {
    const title = st.section || '';
    if (!at.has(title)) { at.set(title, out.length); out.push({ title, sentences: [] }); }
    out[at.get(title)].sentences.push(st);
  }
  return out;
}

// topicPage shows the topic page of a place, office, era year, person,
// glossary term or free text: a table of contents, the sections with their
// sentences and citations (hover or focus a marker for the cited chunk),
// every person a sentence names linked to his biography, the history; and
// requests one when there is none.
function topicPage(topic) {
  const head = h('section', { class: 'entity-head topic-head' }, h('p', { class: 'muted' }, 'Loading…'));
  const body = h('section', { class: 'topic', 'aria-labelledby': 'topic-h' });
  const live = h('section', { class: 'live', 'aria-live': 'polite', hidden: true });
  const hist = h('section', { class: 'history', 'aria-labelledby': 'hist-h' });
  const genBtn = h('button', { type: 'button', id: 'generate' }, 'Generate topic page');
  setPage(topic, head, h('div', { class: 'actions' }, genBtn), live, body, hist);
  let stopStream = null;
  const pagePath = '/v1/pages/' + enc(topic) + '?kind=topic_page';

  const loadHead = async () => {
    try {
      const v = await api('/v1/entities/' + enc(topic));
      const aliases = (v.aliases || []).filter((a) => a !== v.name);
      put(head, h('p', null, h('span', { class: 'type' }, typeLabel[v.type] || v.type || ''),
        v.name !== topic ? h('span', null, ' ' + v.name) : null,
        aliases.length ? h('span', { class: 'aliases' }, ' also ' + aliases.join(', ')) : null,
        ' ', h('a', { href: '#/entity/' + enc(topic), class: 'small' }, 'entity and knowledge graph')));
    } catch (err) {
      put(head, err.status === 404
        ? h('p', null, h('span', { class: 'type' }, 'text'), ' ', h('span', { class: 'muted' }, 'a free-text topic'))
        : errorBox(err));
    }
  };

  const loadPage = async () => {
    put(body, h('h2', { id: 'topic-h' }, 'Topic page'), h('p', { class: 'muted' }, 'Loading…'));
    let page;
    try {
      page = await api(pagePath + '&text=1');
    } catch (err) {
      put(body, h('h2', { id: 'topic-h' }, 'Topic page'), err.status === 404
        ? h('p', { class: 'muted', id: 'no-page' }, 'No topic page yet. Generate one.')
        : errorBox(err));
      put(hist);
      return;
    }
    genBtn.textContent = 'Regenerate topic page';
    const chunks = new Map(Object.entries(page.chunks || {}));
    const people = page.people || [];
    const sections = topicSections(page);
    const numbers = new Map();
    const toc = h('nav', { class: 'toc', id: 'toc', 'aria-labelledby': 'toc-h' },
      h('h2', { id: 'toc-h' }, 'Contents'),
      h('ol', null, sections.map((sec, i) => h('li', null, tocLink(i, sec.title || 'Untitled'),
        h('span', { class: 'muted small' }, ' (' + (sec.sentences || []).length + ')')))));
    const secs = sections.map((sec, i) => {
      const ol = h('ol', { class: 'bio' });
      for (const [j, st] of (sec.sentences || []).entries()) ol.append(sentenceItem(st, j, numbers, chunks, people));
      return h('section', { class: 'tsec', id: sectionAnchor(i), tabindex: '-1', 'aria-labelledby': sectionAnchor(i) + '-h' },
        h('h3', { id: sectionAnchor(i) + '-h' }, sec.title || 'Untitled'), ol);
    });
    put(body,
      h('h2', { id: 'topic-h' }, 'Topic page ', h('span', { class: 'muted' }, 'version ' + page.version),
        page.stale ? h('span', { class: 'badge b-corrected', title: 'a source changed; a new version is on its way' }, 'stale') : null),
      h('div', { class: 'topic-cols' }, toc, h('div', { class: 'topic-body' }, secs)),
      (page.dropped || []).length ? h('details', { class: 'dropped' },
        h('summary', null, page.dropped.length + ' sentence(s) left out'),
        h('ul', null, page.dropped.map((d) => h('li', null, '#' + d.index + ': ' + d.reason)))) : null,
      page.generated_at ? h('p', { class: 'muted' }, 'Generated ' + page.generated_at) : null);
    renderHistory(hist, topic, page.versions || [], 'topic_page');
  };

  genBtn.addEventListener('click', () => {
    if (stopStream) stopStream();
    let section = null;
    generatePage(live, genBtn, 'topic_page', topic, (list, d, numbers) => {
      if (d.section && d.section !== section) {
        section = d.section;
        list.append(h('li', { class: 'stream-section' }, h('strong', null, section)));
      }
      list.append(sentenceItem(d, d.index, numbers, new Map()));
    }, loadPage, (stop) => { stopStream = stop; });
  });

  loadHead();
  loadPage();
  return () => { if (stopStream) stopStream(); };
}

// answerSentence is one sentence of an answer with its citation markers:
// each shows the cited document's text on hover, focus or click.
function answerSentence(st, i, numbers, chunks) {
  const marks = (st.citations || []).map((c) => {
    if (!numbers.has(c.chunk_id)) numbers.set(c.chunk_id, numbers.size + 1);
    const n = numbers.get(c.chunk_id);
    return citationMarker(n, { chunkId: c.chunk_id, label: 'Document ' + n + (c.doc_id ? ' · ' + c.doc_id : ''),
      text: chunks.get(c.chunk_id) || c.text || '', lang: 'en' });
  });
  const status = st.status || 'supported';
  return h('li', { class: 'sentence s-' + status, 'data-index': st.index !== undefined ? st.index : i },
    h('span', { class: 'stext', lang: 'en' }, st.text), h('span', { class: 'cites' }, marks),
    h('span', { class: 'badge b-' + status, title: st.note || '' }, statusLabel[status] || status));
}

// answerPage shows the answer to a question (kind answer): its sentences,
// each citing the passages that support it (hover or focus a marker for
// the passage), and asks for one when there is none.
function answerPage(question) {
  const body = h('section', { class: 'answer', 'aria-labelledby': 'answer-h' });
  const live = h('section', { class: 'live', 'aria-live': 'polite', hidden: true });
  const genBtn = h('button', { type: 'button', id: 'generate' }, 'Answer');
  setPage(question, h('div', { class: 'actions' }, genBtn), live, body);
  let stopStream = null;
  const loadPage = async () => {
    put(body, h('h2', { id: 'answer-h' }, 'Answer'), h('p', { class: 'muted' }, 'Loading…'));
    let page;
    try {
      page = await api('/v1/pages/' + enc(question) + '?kind=answer&text=1');
    } catch (err) {
      put(body, h('h2', { id: 'answer-h' }, 'Answer'), err.status === 404
        ? h('p', { class: 'muted', id: 'no-page' }, 'No answer yet.')
        : errorBox(err));
      return;
    }
    genBtn.textContent = 'Answer again';
    const chunks = new Map(Object.entries(page.chunks || {}));
    const numbers = new Map();
    const ol = h('ol', { class: 'bio', id: 'answer' });
    for (const [i, st] of (page.sentences || []).entries()) ol.append(answerSentence(st, i, numbers, chunks));
    put(body, h('h2', { id: 'answer-h' }, 'Answer ', h('span', { class: 'muted' }, 'version ' + page.version)),
      (page.sentences || []).length ? ol : h('p', { class: 'muted' }, 'No sentence the sources support.'),
      page.generated_at ? h('p', { class: 'muted' }, 'Generated ' + page.generated_at) : null);
  };
  genBtn.addEventListener('click', () => {
    if (stopStream) stopStream();
    generatePage(live, genBtn, 'answer', question, (list, d, numbers) => list.append(answerSentence(d, d.index, numbers, new Map())),
      loadPage, (stop) => { stopStream = stop; });
  });
  loadPage();
  return () => { if (stopStream) stopStream(); };
}

// generatePage asks for a page of kind about subject and shows its
// sentences in live as the verifier accepts them: item appends one to the
// list (numbers keeps the citation markers), dropped sentences say why.
// When the request ends the button is enabled again and reload shows the
// stored page. setStop receives the stream's stop function, and null once
// it has ended.
async function generatePage(live, genBtn, kind, subject, item, reload, setStop) {
  genBtn.disabled = true;
  live.hidden = false;
  const list = h('ol', { class: 'bio streaming', id: 'stream' });
  const state = h('p', { class: 'muted', id: 'stream-state' }, 'Requesting…');
  put(live, h('h2', null, 'Writing'), state, list);
  try {
    const req = await api('/v1/requests', { method: 'POST', json: { kind, subject } });
    state.textContent = 'Request ' + req.request_id + ' queued; sentences appear as they are verified.';
    const numbers = new Map();
    setStop(streamRequest(req.request_id, {
      sentence: (d) => item(list, d, numbers),
      dropped: (d) => list.append(h('li', { class: 'sentence s-dropped' },
        h('span', { class: 'badge b-dropped' }, 'dropped'), ' ' + d.reason)),
      done: async (st) => {
        genBtn.disabled = false;
        setStop(null);
        state.textContent = st.state === 'published'
          ? 'Published version ' + st.version + '.'
          : 'Request ' + st.state + (st.error ? ': ' + st.error : '') + '.';
        state.setAttribute('data-state', st.state);
        await reload();
      },
      error: (err) => {
        genBtn.disabled = false;
        put(state, errorBox(err));
      },
    }));
  } catch (err) {
    genBtn.disabled = false;
    put(state, errorBox(err));
  }
}

// streamRequest follows a request's events with EventSource. It cannot
// set headers, so the tenant and token go as the query parameters the API
// accepts for it. If the server has no event stream, the request status is
// polled instead. It returns a function that stops.
function streamRequest(id, on) {
  const st = settings();
  const q = new URLSearchParams();
  if (st.tenant) q.set('tenant', st.tenant);
  if (st.token) q.set('access_token', st.token);
  const url = '/v1/requests/' + enc(id) + '/events' + (q.toString() ? '?' + q : '');
  let stopped = false;
  let got = false;
  let poller = null;
  let es = null;
  const stop = () => {
    if (es) { es.close(); es = null; }
    if (poller) clearInterval(poller);
  };
  const finish = (status) => { if (!stopped) { stopped = true; stop(); on.done(status); } };
  const poll = () => {
    poller = setInterval(async () => {
      try {
        const status = await api('/v1/requests/' + enc(id));
        if (status.state === 'published' || status.state === 'failed') finish(status);
      } catch (err) {
        if (!stopped) { stopped = true; stop(); on.error(err); }
      }
    }, 1000);
  };
  const dispatch = (type, data) => {
    got = true;
    let d;
    try { d = JSON.parse(data); } catch (e) { return; }
    if (type === 'sentence') on.sentence(d);
    else if (type === 'dropped') on.dropped(d);
    else if (type === 'done') finish(d);
  };
  if (window.EventSource) {
    es = new EventSource(url);
    for (const t of ['sentence', 'dropped', 'done']) es.addEventListener(t, (ev) => dispatch(t, ev.data));
    es.onerror = (ev) => {
      if (stopped) return;
      if (ev.data) {
        // The server's own error event: the request memory failed.
        let msg = ev.data;
        try { msg = JSON.parse(ev.data).error || msg; } catch (e) { /* keep the raw text */ }
        stopped = true; stop(); on.error(new Error(msg));
        return;
      }
      // Before any event: no stream here (or it failed); poll instead.
      // After: the browser reconnects with Last-Event-ID by itself.
      if (!got) { es.close(); es = null; poll(); }
    };
  } else {
    poll();
  }
  return () => { stopped = true; stop(); };
}

function renderHood(el, g) {
  const nodes = new Map((g.nodes || []).map((n) => [n.id, n]));
  const edges = (g.edges || []).filter((e) => e.relation !== 'mention');
  const items = edges.map((e) => {
    const head = nodes.get(e.head_id);
    const tail = e.tail_id && nodes.get(e.tail_id);
    const tailName = (tail && tail.name) || e.tail || e.tail_id || '';
    const fromRoot = e.head_id === g.root;
    return h('li', null,
      fromRoot ? null : h('a', { href: '#/entity/' + enc((head && head.name) || e.head || e.head_id) },
        (head && head.name) || e.head || e.head_id), fromRoot ? null : ' ',
      h('span', { class: 'rel' }, e.relation), ' ',
      e.tail_id ? h('a', { href: '#/entity/' + enc(tailName) }, tailName) : h('span', null, tailName),
      e.chunk_id ? h('span', { class: 'muted small' }, ' ' + e.chunk_id) : null);
  });
  put(el, h('h2', { id: 'hood-h' }, 'Knowledge graph'),
    edges.length ? graphSVG(g, edges, nodes) : null,
    edges.length ? h('ul', { class: 'edges' }, items) : h('p', { class: 'muted' }, 'No facts.'),
    g.truncated ? h('p', { class: 'muted' }, 'Truncated at the store’s edge limit.') : null);
}

// graphSVG draws the root in the middle and its neighbours on a circle.
function graphSVG(g, edges, nodes) {
  const others = [];
  const seen = new Set([g.root]);
  for (const e of edges) {
    for (const id of [e.head_id, e.tail_id || ('value:' + e.tail)]) {
      if (!seen.has(id)) { seen.add(id); others.push(id); }
    }
  }
  const shown = others.slice(0, 24);
  const W = 420; const H = 300; const cx = W / 2; const cy = H / 2; const R = 115;
  const pos = new Map([[g.root, [cx, cy]]]);
  shown.forEach((id, i) => {
    const a = (2 * Math.PI * i) / shown.length - Math.PI / 2;
    pos.set(id, [cx + R * Math.cos(a) * 1.45, cy + R * Math.sin(a)]);
  });
  const label = (id) => {
    const n = nodes.get(id);
    if (n) return n.name;
    return id.startsWith('value:') ? id.slice(6) : id.replace(/^[a-z]+:/, '').replace(/@.*$/, '');
  };
  const svg = s('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'graph', role: 'img',
    'aria-label': 'Neighbourhood graph of ' + label(g.root) });
  for (const e of edges) {
    const a = pos.get(e.head_id);
    const b = pos.get(e.tail_id || ('value:' + e.tail));
    if (!a || !b) continue;
    svg.append(s('line', { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: 'gedge' },
      s('title', null, e.relation)));
  }
  for (const [id, [x, y]] of pos) {
    const n = nodes.get(id);
    svg.append(s('g', { class: 'gnode' + (id === g.root ? ' groot' : '') + (n ? ' t-' + n.type : '') },
      s('circle', { cx: x, cy: y, r: id === g.root ? 9 : 5 }),
      s('text', { x, y: y - 10, 'text-anchor': 'middle' }, label(id))));
  }
  return svg;
}

// renderHistory lists a page's versions with a diff form; kind is the
// page's kind (biography when absent).
function renderHistory(el, name, versions, kind) {
  if (versions.length < 1) { put(el); return; }
  const opts = (sel) => versions.map((v) => h('option', { value: v.version, selected: v.version === sel },
    'v' + v.version + (v.generated_at ? ' — ' + v.generated_at : '') + ' (' + v.sentences + ')'));
  const last = versions[versions.length - 1].version;
  const from = h('select', { id: 'diff-from' }, opts(versions.length > 1 ? versions[versions.length - 2].version : last));
  const to = h('select', { id: 'diff-to' }, opts(last));
  const out = h('div', { class: 'diff', 'aria-live': 'polite' });
  const form = h('form', { class: 'row', onsubmit: async (ev) => {
    ev.preventDefault();
    put(out, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const d = await api('/v1/pages/' + enc(name) + '/diff?from=' + from.value + '&to=' + to.value +
        (kind ? '&kind=' + enc(kind) : ''));
      put(out, h('ul', { class: 'difflist' }, (d.sentences || []).map((x) =>
        h('li', { class: 'op-' + x.op }, h('span', { class: 'op', 'aria-label': x.op },
          x.op === 'added' ? '+' : x.op === 'removed' ? '−' : ' '), x.text))));
    } catch (err) {
      put(out, errorBox(err));
    }
  } },
  h('label', { for: 'diff-from' }, 'From'), from, h('label', { for: 'diff-to' }, 'to'), to,
  h('button', { type: 'submit' }, 'Compare'));
  put(el, h('h2', { id: 'hist-h' }, 'History'),
    h('ul', { class: 'versions' }, versions.map((v) => h('li', null, 'v' + v.version + ' · ' +
      v.sentences + ' sentences' + (v.generated_at ? ' · ' + v.generated_at : '')))),
    versions.length > 1 ? form : null, out);
}

// ---- discussions ----------------------------------------------------------

// feedEntry reads a feed item in either of its shapes: a JSON Feed item
// of GET /v1/feed (summary and version under _annalist) or the FeedItem of
// the event stream. It returns {id, title, date, version, summary}, or
// null for anything else.
function feedEntry(x) {
  if (!x || typeof x !== 'object') return null;
  const ann = x._annalist || {};
  const summary = ann.summary || x.summary || null;
  const id = x.id || (summary && summary.id);
  if (!id || !summary) return null;
  return {
    id: String(id),
    title: x.title || '',
    date: x.date_published || x.published || '',
    version: ann.version || x.version || 0,
    summary,
  };
}

// discussionParts reads GET /v1/discussions/{id}: the stored discussion
// (KGDS shape: SBK, KGD) under "discussion", its title, and its newest
// feed item under "item" (null while its summary is not published).
function discussionParts(data) {
  if (!data || typeof data !== 'object') return { discussion: null, item: null, title: '' };
  const d = data.discussion || ((data.SBK || data.KGD) ? data : null);
  return { discussion: d, item: feedEntry(data.item || null), title: data.title || '' };
}

function shortDate(iso) {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toLocaleString();
}

function summaryCounts(sum) {
  const bg = ((sum.background && sum.background.sentences) || []).length;
  const ops = sum.opinions || [];
  const n = ops.reduce((a, o) => a + (o.sentences || []).length, 0);
  return bg + ' background sentence' + (bg === 1 ? '' : 's') + ' · ' + n + ' opinion' + (n === 1 ? '' : 's') +
    ' of ' + ops.length + ' participant' + (ops.length === 1 ? '' : 's');
}

// followFeed calls on(item) for every summary the feed stage publishes
// (event "summary" of GET /v1/feed/events) and onOpen each time the stream
// reconnects, so the caller reloads what it may have missed. Without an
// event stream it calls onOpen every 5 s instead. onMode, when given, is
// told 'live' once the stream is open and 'polling' when it polls. It
// returns a function that stops.
function followFeed(on, onOpen, onMode) {
  const mode = onMode || (() => {});
  const st = settings();
  const q = new URLSearchParams();
  if (st.tenant) q.set('tenant', st.tenant);
  if (st.token) q.set('access_token', st.token);
  let es = null;
  let poller = null;
  let opened = false;
  const poll = () => { if (!poller) { poller = setInterval(onOpen, 5000); mode('polling'); } };
  if (window.EventSource) {
    es = new EventSource('/v1/feed/events' + (q.toString() ? '?' + q : ''));
    es.addEventListener('open', () => { if (opened) onOpen(); opened = true; mode('live'); });
    es.addEventListener('summary', (ev) => {
      let d;
      try { d = JSON.parse(ev.data); } catch (e) { return; }
      const it = feedEntry(d);
      if (it) on(it);
    });
    // A closed stream (no such endpoint, refused) is not retried by the
    // browser: poll instead. A dropped one reconnects by itself.
    es.onerror = () => { if (es && es.readyState === EventSource.CLOSED) { es = null; poll(); } };
  } else {
    poll();
  }
  return () => {
    if (es) { es.close(); es = null; }
    if (poller) clearInterval(poller);
  };
}

function feedRow(it, fresh) {
  return h('li', { 'data-id': it.id, 'data-version': it.version, class: fresh ? 'fresh' : null },
    h('a', { href: '#/discussions/' + enc(it.id), class: 'result' },
      h('span', { class: 'name' }, it.title || it.id),
      h('span', { class: 'type' }, 'v' + it.version),
      it.date ? h('time', { class: 'muted small', datetime: it.date }, shortDate(it.date)) : null,
      h('span', { class: 'leads muted small' }, summaryCounts(it.summary))));
}

// discussionsPage lists the summaries of the feed, newest first, and adds
// each new one (or new version) as the feed stage publishes it.
function discussionsPage() {
  const list = h('ul', { class: 'results feed', id: 'feed-list', 'aria-live': 'polite' });
  const count = h('span', { id: 'feed-count' }, 'Loading…');
  const liveNote = h('span', { class: 'small', id: 'feed-live' });
  const status = h('div', { class: 'muted', id: 'feed-status' }, count, ' ', liveNote);
  const waiting = h('div', { id: 'feed-pending' });
  setPage('Discussions', h('p', { class: 'muted' },
    'Summaries of news discussions: the background a reader needs and what each participant thinks, ',
    'every sentence cited to its paragraph or turn. New summaries appear here as they are published.'),
  status, list, waiting);
  const items = new Map();
  // Discussions received whose summary is not published yet (id → title).
  let pending = new Map();
  const show = () => {
    const sorted = Array.from(items.values()).sort((a, b) => (Date.parse(b.it.date) || 0) - (Date.parse(a.it.date) || 0));
    put(list, sorted.map((x) => feedRow(x.it, x.fresh)));
    count.textContent = items.size ? items.size + ' summar' + (items.size === 1 ? 'y' : 'ies')
      : 'No summary yet. Send a discussion with POST /v1/discussions or `annalist ingest discussions FILE`.';
    count.setAttribute('data-count', String(items.size));
    const left = Array.from(pending).filter(([id]) => !items.has(id));
    put(waiting, left.length ? [h('h2', { class: 'rhead' }, 'Waiting for a summary'),
      h('ul', { class: 'results feed pending' }, left.map(([id, title]) => h('li', { 'data-id': id },
        h('a', { href: '#/discussions/' + enc(id), class: 'result' }, h('span', { class: 'name' }, title || id),
          h('span', { class: 'leads muted small' }, 'summary being written')))))] : null);
  };
  const load = async () => {
    try {
      const feed = await api('/v1/feed?limit=100');
      for (const raw of (feed && feed.items) || []) {
        const it = feedEntry(raw);
        const had = it && items.get(it.id);
        if (it && (!had || had.it.version <= it.version)) items.set(it.id, { it, fresh: had ? had.fresh : false });
      }
      show();
    } catch (err) {
      put(count, errorBox(err));
      return;
    }
    try {
      const ds = await api('/v1/discussions?limit=100');
      pending = new Map(((ds && ds.discussions) || []).filter((d) => !d.version).map((d) => [d.id, d.title]));
      show();
    } catch (err) {
      // The list of pending discussions is a courtesy; the feed stands.
      pending = new Map();
    }
  };
  const stop = followFeed((it) => {
    const had = items.get(it.id);
    if (had && had.it.version > it.version) return;
    items.set(it.id, { it, fresh: true });
    show();
  }, load, (m) => {
    liveNote.setAttribute('data-mode', m);
    liveNote.textContent = m === 'live' ? '· updates live' : '· checking for new summaries every 5 s';
  });
  load();
  return stop;
}

// markEntities writes an opinion sentence with the entities it names
// marked for a reader (the longest name wins where two start together);
// names the text does not hold verbatim are listed after it.
function markEntities(text, entities) {
  const names = Array.from(new Set((entities || []).filter((e) => e))).sort((a, b) => b.length - a.length);
  const found = new Set();
  const out = [];
  let plain = '';
  let i = 0;
  while (i < text.length) {
    const e = names.find((n) => text.startsWith(n, i));
    if (!e) { plain += text[i]; i++; continue; }
    if (plain) { out.push(plain); plain = ''; }
    out.push(h('mark', { class: 'entity', 'data-entity': e, title: 'entity: ' + e }, e));
    found.add(e);
    i += e.length;
  }
  if (plain) out.push(plain);
  // A name inside a marked one ("Lund" in "Victor Lund") is marked
  // with it.
  const marked = Array.from(found);
  return { nodes: out, missing: names.filter((n) => !marked.some((m) => m.includes(n))) };
}

// discussionTexts indexes a stored discussion for the citation popups:
// paragraphs by paragraph_index, turns by their 0-based position.
function discussionTexts(d) {
  const paragraphs = new Map();
  for (const p of (d && d.SBK) || []) paragraphs.set(p.paragraph_index, p.paragraph_text);
  return { paragraphs, turns: (d && d.KGD) || [] };
}

// paragraphCite is the marker of a citation of paragraph index; its popup
// shows the paragraph with the citing sentence (sentence) marked where
// the paragraph holds it.
function paragraphCite(id, index, texts, sentence) {
  const text = texts.paragraphs.get(index);
  return citationMarker('¶' + index, {
    chunkId: 'disc:' + id + ':p' + index, label: 'Paragraph ' + index, lang: 'en', text,
    needles: sentence ? [sentence] : [], missing: 'paragraph text not available',
  }, { 'data-paragraph': index, 'aria-label': 'paragraph ' + index });
}

// turnCite is the marker of a citation of turn (0-based; shown 1-based);
// its popup shows "PersonN: utterance".
function turnCite(id, turn, texts) {
  const t = texts.turns[turn];
  return citationMarker('T' + (turn + 1), {
    chunkId: 'disc:' + id + ':t' + turn, label: 'Turn ' + (turn + 1), lang: 'en',
    body: () => (t ? [h('strong', null, t.participant + ':'), ' ' + t.utterance]
      : h('em', null, 'turn not available')),
  }, { 'data-turn': turn, 'aria-label': 'turn ' + (turn + 1) + (t ? ', ' + t.participant : '') });
}

// renderSummary draws a discussion summary: the background sentences with
// their paragraph citations, then each participant's opinions with the
// entities marked and their turn citations.
function renderSummary(id, it, texts) {
  const sum = it.summary;
  const bg = sum.background || {};
  const paras = bg.paragraphs || [];
  const bgList = h('ol', { class: 'bio disc-background' }, (bg.sentences || []).map((st, i) =>
    h('li', { class: 'sentence', 'data-index': i },
      h('span', { class: 'stext' }, st.text),
      h('span', { class: 'cites' }, (st.citations || []).map((c) => paragraphCite(id, c.paragraph_index, texts, st.text))))));
  const ops = (sum.opinions || []).map((o) => h('section', { class: 'disc-participant', 'data-participant': o.participant },
    h('h3', null, o.participant),
    h('ol', { class: 'bio' }, (o.sentences || []).map((st, i) => {
      const m = markEntities(st.text, st.entities);
      return h('li', { class: 'sentence', 'data-index': i },
        h('span', { class: 'stext' }, m.nodes),
        h('span', { class: 'cites' }, (st.citations || []).map((c) => turnCite(id, c.turn, texts))),
        m.missing.length ? h('span', { class: 'muted small ents' }, ' names ', m.missing.map((e) =>
          h('mark', { class: 'entity', 'data-entity': e }, e)).reduce((a, x) => (a.length ? a.concat([', ', x]) : [x]), [])) : null);
    }))));
  return h('div', { class: 'disc-summary', 'data-version': it.version },
    h('h2', { id: 'disc-bg-h' }, 'Background'),
    paras.length ? h('p', { class: 'muted small' }, 'From paragraph' + (paras.length === 1 ? ' ' : 's ') + paras.join(', ') +
      ' of ' + texts.paragraphs.size + '.') : null,
    (bg.sentences || []).length ? bgList : h('p', { class: 'muted' }, 'No background sentence was kept.'),
    h('h2', { id: 'disc-op-h' }, 'Opinions'),
    ops.length ? h('div', { class: 'disc-opinions' }, ops) : h('p', { class: 'muted' }, 'No opinion was kept.'));
}

// renderSource shows the discussion as it was received, folded.
function renderSource(d) {
  if (!d) return null;
  return h('details', { class: 'disc-source' },
    h('summary', null, 'The discussion: ' + ((d.SBK || []).length) + ' paragraphs, ' + ((d.KGD || []).length) + ' turns'),
    h('h3', null, 'Background'),
    h('ol', { class: 'paras' }, (d.SBK || []).map((p) => h('li', { value: p.paragraph_index }, p.paragraph_text))),
    h('h3', null, 'Turns'),
    h('ol', { class: 'turns' }, (d.KGD || []).map((t) => h('li', null, h('strong', null, t.participant + ':'), ' ' + t.utterance))));
}

// discussionPage shows one discussion's summary; the popups of its
// citations show the cited paragraph or turn of the stored discussion. A
// newer version published while it is open replaces it.
function discussionPage(id) {
  const head = h('p', { class: 'muted', id: 'disc-head' }, 'Loading…');
  const body = h('section', { class: 'disc', 'aria-live': 'polite' });
  const source = h('section', { class: 'disc-src' });
  setPage(id, h('p', null, h('a', { href: '#/discussions' }, '← Discussions')), head, body, source);
  let texts = discussionTexts(null);
  let shown = null;
  let title = '';
  const retitle = (t) => {
    if (!t) return;
    title = t;
    const h1 = main.querySelector('h1');
    if (h1) h1.textContent = t;
    document.title = t + ' — annalist';
  };
  const draw = (it) => {
    shown = it;
    retitle(it.title || title);
    put(head, 'Summary version ' + it.version, it.date ? ' · published ' + shortDate(it.date) : '');
    put(body, renderSummary(id, it, texts));
  };
  const load = async () => {
    let parts = { discussion: null, item: null, title: '' };
    let err = null;
    try {
      parts = discussionParts(await api('/v1/discussions/' + enc(id)));
    } catch (e) {
      err = e;
    }
    let item = parts.item;
    if (!item && err) {
      // The discussion could not be read: its item from the feed, whose
      // summary shows without the citations' texts.
      try {
        const feed = await api('/v1/feed?limit=500');
        item = ((feed && feed.items) || []).map(feedEntry).find((x) => x && x.id === id) || null;
      } catch (e) {
        err = err || e;
      }
    }
    const hadTexts = texts.turns.length > 0;
    retitle(parts.title);
    if (parts.discussion) {
      texts = discussionTexts(parts.discussion);
      put(source, renderSource(parts.discussion));
    }
    // Drawn again only for a newer version (or the citation texts that
    // were missing), so a marker being hovered stays in place.
    if (item && (!shown || item.version > shown.version || (!hadTexts && texts.turns.length))) draw(item);
    else if (!shown) {
      put(head, err && err.status !== 404 ? errorBox(err) : null);
      put(body, h('p', { class: 'muted', id: 'no-summary' }, parts.discussion
        ? 'No summary published yet; it appears here when it is.'
        : 'No discussion ' + id + ' is known yet.'));
    }
  };
  const stop = followFeed((it) => {
    if (it.id !== id || (shown && shown.version >= it.version)) return;
    if (!texts.turns.length) { load(); return; }
    draw(it);
  }, load);
  load();
  return stop;
}

// ---- ingest ---------------------------------------------------------------

function ingestPage() {
  const title = h('input', { id: 'doc-title', name: 'title', autocomplete: 'off' });
  const text = h('textarea', { id: 'doc-text', name: 'text', rows: 10 });
  const file = h('input', { id: 'doc-file', type: 'file', accept: '.txt,.md,.json,.ndjson,text/plain' });
  const out = h('div', { id: 'ingest-status', 'aria-live': 'polite' });
  const timers = [];
  // A .json or .ndjson file is sent as it is (one document, a
  // {"documents":[…]} batch, or one document per line); any other file is
  // the text of one document.
  let raw = null;
  file.addEventListener('change', async () => {
    const f = file.files[0];
    raw = null;
    if (!f) return;
    const body = await f.text();
    if (/\.(ndjson|jsonl)$/i.test(f.name)) raw = { body, type: 'application/x-ndjson' };
    else if (/\.json$/i.test(f.name)) raw = { body, type: 'application/json' };
    text.value = body;
    if (!title.value && !raw) title.value = f.name.replace(/\.[^.]+$/, '');
  });
  text.addEventListener('input', () => { raw = null; });
  const form = h('form', { class: 'ingest', onsubmit: async (ev) => {
    ev.preventDefault();
    if (!text.value.trim()) { put(out, errorBox(new Error('The document is empty.'))); return; }
    put(out, h('p', { class: 'muted' }, 'Sending…'));
    try {
      let res;
      if (raw) {
        res = await api('/v1/documents', { method: 'POST', body: raw.body, headers: { 'Content-Type': raw.type } });
      } else {
        const body = { text: text.value };
        if (title.value.trim()) body.title = title.value.trim();
        res = await api('/v1/documents', { method: 'POST', json: body });
      }
      const ids = (res && (res.doc_ids || (res.doc_id ? [res.doc_id] : []))) || [];
      if (!ids.length) { put(out, h('p', null, 'Accepted.')); return; }
      put(out, ...ids.map((id) => docStatus(id, timers)));
    } catch (err) {
      put(out, errorBox(err));
    }
  } },
  h('label', { for: 'doc-title' }, 'Title (optional)'), title,
  h('label', { for: 'doc-text' }, 'Document text'), text,
  h('label', { for: 'doc-file' }, 'Or load a file'), file,
  h('div', null, h('button', { type: 'submit' }, 'Ingest')));
  setPage('Ingest a document', form, out);
  return () => timers.forEach((t) => clearInterval(t));
}

// docStatus shows a document's stages, polling until all are done.
function docStatus(id, timers) {
  const stages = ['chunked', 'extracted', 'indexed'];
  const cells = Object.fromEntries(stages.map((st) => [st, h('td', { 'data-stage': st }, '…')]));
  const info = h('td', null, '');
  const row = h('table', { class: 'docstatus' },
    h('caption', null, id),
    h('thead', null, h('tr', null, stages.map((st) => h('th', { scope: 'col' }, st)), h('th', { scope: 'col' }, 'chunks'))),
    h('tbody', null, h('tr', null, stages.map((st) => cells[st]), info)));
  let n = 0;
  const tick = async () => {
    n++;
    try {
      const d = await api('/v1/documents/' + enc(id));
      let all = true;
      for (const st of stages) {
        const ok = !!(d.stages && d.stages[st]);
        all = all && ok;
        cells[st].textContent = ok ? '✓ done' : 'waiting';
        cells[st].className = ok ? 'ok' : 'wait';
      }
      info.textContent = d.chunks !== undefined ? String(d.chunks) : '';
      if (d.title) row.querySelector('caption').textContent = d.title + ' · ' + id;
      if (all) clearInterval(t);
    } catch (err) {
      if (err.status !== 404 || n > 120) { clearInterval(t); info.textContent = err.message; }
    }
    if (n > 300) clearInterval(t);
  };
  const t = setInterval(tick, 1000);
  timers.push(t);
  tick();
  return row;
}

// ---- reviews --------------------------------------------------------------

function reviewsPage() {
  const list = h('div', { id: 'reviews', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading…'));
  setPage('Review queue', h('p', { class: 'muted' },
    'Sources disagree on these facts, or a name in a passage may be one of several persons. Choose what the evidence supports.'), list);
  const load = async () => {
    try {
      const data = await api('/v1/reviews');
      const rs = Array.isArray(data) ? data : (data && data.reviews) || [];
      if (!rs.length) { put(list, h('p', { id: 'no-reviews' }, 'No open reviews.')); return; }
      put(list, ...rs.map((r) => reviewCard(r, load)));
    } catch (err) {
      put(list, errorBox(err));
    }
  };
  load();
}

function reviewCard(r, reload) {
  const name = 'opt-' + r.review_id;
  const msg = h('p', { class: 'muted', 'aria-live': 'polite' });
  // A mention's options are persons: the text describes each (name and
  // native place), the value is the person's id.
  const mention = r.relation === 'mention';
  const options = (r.options || []).map((o, i) => {
    const id = name + '-' + i;
    return h('li', null,
      h('input', { type: 'radio', name, id, value: o.value }),
      h('label', { for: id }, h('strong', null, mention ? (o.text || o.value) : o.value),
        mention ? h('span', { class: 'muted small' }, ' ' + o.value) : null,
        !mention && o.chunk_id ? h('span', { class: 'muted small' }, ' ' + o.chunk_id) : null),
      !mention && o.text ? h('blockquote', { lang: 'zh' }, markedText(o.text, [o.value])) : null);
  });
  const form = h('form', { class: 'review', 'data-review': r.review_id, onsubmit: async (ev) => {
    ev.preventDefault();
    const chosen = form.querySelector('input[type=radio]:checked');
    if (!chosen) { msg.textContent = 'Choose an option first.'; return; }
    try {
      await api('/v1/reviews/' + enc(r.review_id), { method: 'POST', json: { decision: chosen.value } });
      msg.textContent = 'Decided: ' + chosen.value;
      await reload();
    } catch (err) {
      put(msg, errorBox(err));
    }
  } },
  h('fieldset', null,
    h('legend', null, h('a', { href: '#/entity/' + enc(r.subject) }, r.subject), ' · ', r.question || r.relation),
    h('ul', { class: 'options' }, options),
    h('button', { type: 'submit' }, 'Decide')),
  msg);
  return form;
}

// ---- pipeline -------------------------------------------------------------

function pipelinePage() {
  const body = h('tbody');
  const dlBody = h('tbody');
  const when = h('p', { class: 'muted', 'aria-live': 'off' });
  const err = h('div', { 'aria-live': 'polite' });
  const dlErr = h('div', { 'aria-live': 'polite' });
  const cols = ['handled', 'produced', 'failed', 'dead_lettered', 'lag'];
  setPage('Pipeline', h('table', { class: 'pipeline', id: 'pipeline' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'stage'), h('th', { scope: 'col' }, 'group'),
      cols.map((c) => h('th', { scope: 'col', class: 'num' }, c.replace('_', ' '))))),
    body), when, err,
  h('h2', { id: 'dlt-h' }, 'Dead letters'),
  h('p', { class: 'muted' }, 'Records in each topic\'s dead-letter topic, replayed ones included; a topic with some links to them. ',
    'Replay them after a fix with ', h('code', null, 'annalist dlt replay TOPIC'), ' or ', h('code', null, 'POST /v1/dead-letters/replay'), '.'),
  h('table', { class: 'pipeline', id: 'dead-letters', 'aria-labelledby': 'dlt-h' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'topic'), h('th', { scope: 'col', class: 'num' }, 'dead letters'))),
    dlBody), dlErr);
  const load = async () => {
    try {
      const d = await api('/v1/pipeline');
      put(body, ...((d && d.stages) || []).map((st) => h('tr', { class: st.failed || st.dead_lettered ? 'bad' : '' },
        h('th', { scope: 'row' }, st.name), h('td', null, st.group || ''),
        cols.map((c) => h('td', { class: 'num' + (c === 'lag' && st.lag > 0 ? ' lagging' : '') },
          st[c] === undefined ? '' : c === 'lag' && st.lag < 0 ? 'unknown' : String(st[c]))))));
      const llm = d && d.llm;
      when.textContent = 'Updated ' + new Date().toLocaleTimeString() + ' · every 2 s' + (llm
        ? ' · LLM: ' + llm.calls + ' calls, ' + llm.total_tokens + ' tokens, ' + llm.errors + ' errors'
        : '');
      put(err, d && d.error ? h('p', { class: 'muted' }, d.error) : null);
    } catch (e) {
      put(err, errorBox(e));
    }
    try {
      // limit=0: the counts alone, without reading the dead letters.
      const dl = await api('/v1/dead-letters?topic=all&limit=0');
      const counts = (dl && dl.counts) || {};
      put(dlBody, ...Object.keys(counts).sort().map((topic) => h('tr', { class: counts[topic] > 0 ? 'bad' : '' },
        h('th', { scope: 'row' }, counts[topic] > 0 ? h('a', { href: '#/dead-letters/' + enc(topic) }, topic) : topic),
        h('td', { class: 'num' }, String(counts[topic])))));
      put(dlErr, null);
    } catch (e) {
      // A server without the dead-letter endpoint hides the table.
      put(dlErr, e.status === 404 ? null : errorBox(e));
    }
  };
  load();
  const t = setInterval(load, 2000);
  return () => clearInterval(t);
}

// deadLettersPage lists one topic's dead letters (the link of the pipeline
// view's count), oldest first, at most 1000, with why each was given up.
function deadLettersPage(topic) {
  const body = h('tbody');
  const msg = h('div', { 'aria-live': 'polite' });
  setPage('Dead letters of ' + topic, h('p', null, h('a', { href: '#/pipeline' }, '← Pipeline')),
    h('table', { class: 'pipeline', id: 'dead-letter-list' },
      h('thead', null, h('tr', null, ['time', 'from', 'group', 'event', 'error', 'replayed'].map((c) => h('th', { scope: 'col' }, c)))),
      body), msg);
  (async () => {
    try {
      const d = await api('/v1/dead-letters?topic=' + enc(topic) + '&limit=1000');
      const dls = (d && d.dead_letters) || [];
      put(body, ...dls.map((x) => h('tr', null,
        h('td', null, x.time ? new Date(x.time).toLocaleString() : ''),
        h('td', null, x.partition + '@' + x.offset + ' (dlt ' + x.dlt_partition + ':' + x.dlt_offset + ')'),
        h('td', null, x.group || ''), h('td', null, x.event_id || ''), h('td', null, x.error || ''),
        h('td', null, x.replayed ? 'yes' : 'no'))));
      put(msg, dls.length ? null : h('p', { class: 'muted' }, 'No dead letters of this tenant.'));
    } catch (e) {
      put(msg, errorBox(e));
    }
  })();
}

// ---- start ----------------------------------------------------------------

const settingsForm = document.getElementById('settings');
settingsForm.tenant.value = settings().tenant;
settingsForm.token.value = settings().token;
settingsForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  localStorage.setItem('annalist.tenant', settingsForm.tenant.value.trim());
  localStorage.setItem('annalist.token', settingsForm.token.value.trim());
  settingsForm.closest('details').open = false;
  route();
});
window.addEventListener('hashchange', () => { route(); main.focus({ preventScroll: true }); });
route();
