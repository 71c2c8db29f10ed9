// Runs in each page before it is printed (book_tools.pdf): waits for its images and
// MathJax, makes it a printed page, and reports what did not load or typeset.
const done = arguments[arguments.length - 1];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  for (let t = 0; t < 600 && document.readyState !== 'complete'; t++) await sleep(50);
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); })));
  const maths = document.querySelectorAll('.math').length;
  for (let t = 0; maths && t < 600 && !(window.MathJax && MathJax.startup); t++) await sleep(50);
  if (maths && window.MathJax && MathJax.startup) await MathJax.startup.promise;
  const problems = [
    ...(maths && !document.querySelector('mjx-container') ? ['MathJax typeset nothing'] : []),
    ...Array.from(document.querySelectorAll('.math')).filter(e => !e.querySelector(
      'mjx-container')).slice(0, 3).map(e => 'not typeset: ' + e.textContent.slice(0, 60)),
    ...Array.from(document.querySelectorAll('mjx-merror')).map(e => 'MathJax error'),
    ...imgs.filter(i => !(i.complete && i.naturalWidth > 0))
      .map(i => 'image did not load: ' + i.getAttribute('src'))];
  document.querySelectorAll('.tag_cloud-setup, .launch-line, button.toggle-button, '
    + '.bd-sidebar-primary, .bd-sidebar-secondary, .bd-header-article, .header-article, '
    + '.prev-next-area, .bd-header, .skip-link, .onlyprint').forEach(e => e.remove());
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const style = document.createElement('style');
  style.textContent = `@page { size: A4; }
    pre, pre code { white-space: pre-wrap !important; overflow-wrap: anywhere; }
    figure, img, .proof, .admonition, mjx-container[display="true"] { break-inside: avoid; }
    h1, h2, h3 { break-after: avoid; }
    .bd-article-container, .bd-content, .bd-main { max-width: 100% !important; }`;
  document.head.appendChild(style);
  // A display too wide for the paper would be cut at its edge (on screen it scrolls): it is
  // set in a smaller size that fits, down to MIN_FIT of its own; narrower still is reported.
  const MIN_FIT = 0.5;
  document.querySelectorAll('mjx-container[display="true"]').forEach(m => {
    const room = Math.min(m.clientWidth,
                          document.documentElement.clientWidth - m.getBoundingClientRect().left);
    if (m.scrollWidth <= room + 1) return;
    const fit = Math.floor(100 * room / m.scrollWidth) / 100;
    m.style.fontSize = `${Math.max(fit, MIN_FIT) * 100}%`;
    if (fit < MIN_FIT) problems.push('display math too wide for the page even at half size: '
                                     + m.textContent.slice(0, 60));
  });
  done(problems);
})().catch(e => done(['preparing the page failed: ' + e]));
