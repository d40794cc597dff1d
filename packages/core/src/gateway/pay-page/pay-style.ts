/**
 * The pay page's stylesheet, served as a file (`style-src 'self'`: no inline styles). Colours meet WCAG
 * AA contrast on their backgrounds (text at least 7:1 except links and buttons, 6.7:1), targets are at
 * least 44 px high, the focus ring is a dark 3 px outline, and below 30rem the facts stack in one column.
 */
export const payPageStyleSource = `:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; color: #1b1f24; background: #f4f5f7; }
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem; }
main, footer { max-width: 36rem; margin: 0 auto; }
main { background: #fff; border: 1px solid #c9ced6; border-radius: 12px; padding: 1.25rem; }
h1 { font-size: 1.5rem; margin: 0 0 0.75rem; }
h2 { font-size: 1.25rem; margin: 1rem 0 0.5rem; }
p { margin: 0 0 0.75rem; }
.description { white-space: pre-line; overflow-wrap: anywhere; }
dl { margin: 0 0 1rem; }
dl > div { display: grid; grid-template-columns: 8rem 1fr; gap: 0.5rem; padding: 0.375rem 0; border-top: 1px solid #e1e4e8; }
dt { font-weight: 600; color: #343a45; }
dd { margin: 0; overflow-wrap: anywhere; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
input { width: 100%; font: inherit; font-size: 1.125rem; padding: 0.5rem 0.75rem; min-height: 44px; border: 2px solid #5b6573; border-radius: 8px; color: inherit; background: #fff; }
input[aria-invalid="true"] { border-color: #b3261e; }
.hint { margin: 0.25rem 0 0; color: #343a45; font-size: 0.9375rem; }
.field-error, .problem { color: #b3261e; font-weight: 600; }
.field-error { margin: 0.25rem 0 0; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1rem; }
button { font: inherit; font-weight: 600; min-height: 44px; padding: 0.5rem 1.25rem; border-radius: 8px; border: 2px solid #1d4ed8; cursor: pointer; }
#connect { background: #fff; color: #1d4ed8; }
#pay-button { background: #1d4ed8; color: #fff; flex: 1 1 12rem; }
button[aria-disabled="true"] { opacity: 0.7; cursor: progress; }
a { color: #1d4ed8; }
:focus-visible { outline: 3px solid #111827; outline-offset: 2px; }
.account { margin-top: 1rem; overflow-wrap: anywhere; }
.status, .problem { margin: 1rem 0 0; }
.status:empty, .problem:empty { margin: 0; }
.receipt { border-top: 2px solid #1a7f37; margin-top: 1rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.8125rem; background: #f4f5f7; padding: 0.75rem; border-radius: 8px; }
footer { margin-top: 1rem; color: #343a45; font-size: 0.875rem; }
[hidden] { display: none !important; }
@media (max-width: 30rem) { body { padding: 0.5rem; } main { padding: 1rem; } dl > div { grid-template-columns: 1fr; gap: 0; } }
`;
