/**
 * The playground's style sheet, served as `GET /playground.css` (the page's CSP allows style
 * sheets from its own origin only, so there is no inline style anywhere).
 *
 * @module
 */

/** The style sheet. */
export const PLAYGROUND_STYLE: string = `:root {
  color-scheme: light;
  --ink: #1d2330;
  --muted: #5a6475;
  --line: #c9cfda;
  --accent: #1f5fbf;
  --warn-bg: #fff4d6;
  --warn-line: #b7870f;
  --error-bg: #fdeaea;
  --error-line: #b3261e;
  --ok-bg: #eaf6ee;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body {
  margin: 0 auto;
  max-width: 52rem;
  padding: 1rem 1.25rem 3rem;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink);
  background: #f7f8fa;
}
h1 { font-size: 1.6rem; margin: 0.5rem 0 0.25rem; }
h2 { font-size: 1.2rem; margin: 0 0 0.75rem; }
h3 { font-size: 1.05rem; margin: 0 0 0.5rem; }
section, .request {
  background: #fff;
  border: 1px solid var(--line);
  border-radius: 6px;
  padding: 1rem 1.25rem;
  margin: 1rem 0;
}
.request { margin: 0.75rem 0; }
label { display: inline-block; font-weight: 600; margin-bottom: 0.2rem; }
.field > input:not([type="checkbox"]), .field > select, .field > textarea { display: block; }
label.inline { display: inline; font-weight: normal; margin-left: 0.3rem; }
.field { margin: 0 0 0.9rem; }
.hint, .muted { color: var(--muted); font-size: 0.92rem; margin: 0.2rem 0; }
input[type="text"], input[type="email"], input[type="url"], input[type="date"], input[type="number"],
select, textarea {
  width: 100%;
  max-width: 36rem;
  padding: 0.4rem 0.5rem;
  font: inherit;
  border: 1px solid var(--line);
  border-radius: 4px;
  background: #fff;
}
textarea { min-height: 6rem; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 0 0 0.9rem; padding: 0.5rem 0.9rem; }
legend { font-weight: 600; padding: 0 0.3rem; }
button {
  font: inherit;
  padding: 0.4rem 0.9rem;
  margin: 0.25rem 0.4rem 0.25rem 0;
  border: 1px solid var(--accent);
  border-radius: 4px;
  background: var(--accent);
  color: #fff;
  cursor: pointer;
}
button.secondary { background: #fff; color: var(--accent); }
button:disabled { opacity: 0.5; cursor: not-allowed; }
:focus-visible { outline: 3px solid #f2b01e; outline-offset: 2px; }
.required { color: var(--error-line); margin-left: 0.2rem; }
.field-error, .form-error { color: var(--error-line); font-weight: 600; margin: 0.25rem 0 0; }
[aria-invalid="true"] { border-color: var(--error-line); border-width: 2px; }
.warning {
  background: var(--warn-bg);
  border-left: 4px solid var(--warn-line);
  padding: 0.5rem 0.75rem;
  margin: 0.5rem 0;
}
.error, .is-error {
  background: var(--error-bg);
  border-left: 4px solid var(--error-line);
  padding: 0.5rem 0.75rem;
}
.answered { background: var(--ok-bg); padding: 0.4rem 0.75rem; margin: 0.5rem 0 0; }
.url-text { display: block; word-break: break-all; font-size: 1.05rem; padding: 0.5rem; background: #f0f2f6; }
mark.host { background: #ffe28a; font-weight: 700; padding: 0 0.1rem; }
pre {
  white-space: pre-wrap;
  word-break: break-word;
  background: #f0f2f6;
  padding: 0.6rem 0.75rem;
  border-radius: 4px;
  margin: 0.5rem 0;
}
.message { font-size: 1.05rem; }
.roots-row { display: flex; gap: 0.5rem; align-items: flex-end; flex-wrap: wrap; margin-bottom: 0.5rem; }
.roots-row .field { flex: 1 1 14rem; margin: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; margin: 0.5rem 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
`;
