/** The console's only stylesheet, served by the server itself (no CDN, nothing inline). */
export const stylesheet = `
:root { --ink: #1d2330; --muted: #5d6678; --line: #d9dde5; --accent: #2456c7; --danger: #b3261e; --ok: #1f7a3d; --bg: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header.top { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.5rem; background: #1d2330; color: #fff; }
header.top a { color: #fff; text-decoration: none; }
.brand { font-weight: 700; letter-spacing: .05em; }
header.top nav { flex: 1; }
.sign-out { display: flex; align-items: center; gap: .75rem; margin: 0; }
.sign-out .who { color: #c9cfdb; font-size: .9rem; }
main { max-width: 1100px; margin: 1.5rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.5rem; margin: .25rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1.75rem 0 .5rem; }
a { color: var(--accent); }
.trail { margin: 0; color: var(--muted); font-size: .9rem; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; }
td { font-size: .9rem; }
th { background: #eef0f4; font-weight: 600; font-size: .85rem; color: var(--muted); }
form.inline { display: inline; margin: 0; }
form.stacked, form.sign-in, section.confirm, section.project, section.chain { background: #fff; border: 1px solid var(--line); padding: 1rem 1.25rem; border-radius: 6px; max-width: 640px; }
form.sign-in { max-width: 380px; }
section.project { max-width: none; margin-bottom: 1rem; }
section.project h2 { margin-top: 0; }
label { display: block; margin-bottom: .75rem; font-weight: 600; font-size: .9rem; }
input, textarea { display: block; width: 100%; margin-top: .25rem; padding: .45rem .5rem; font: inherit; font-weight: 400; border: 1px solid #b9c0cc; border-radius: 4px; }
textarea { font-family: ui-monospace, monospace; }
button, a.button { display: inline-block; padding: .35rem .8rem; font: inherit; font-size: .9rem; color: #fff; background: var(--accent); border: 0; border-radius: 4px; cursor: pointer; text-decoration: none; }
header.top button { background: #3a4356; }
button.danger, a.button.danger { background: var(--danger); }
section.confirm a.button { background: #6b7385; margin-left: .5rem; }
.notice { padding: .6rem .9rem; border-radius: 4px; background: #e7f3ea; border: 1px solid #b5dbbf; color: var(--ok); }
.notice.error { background: #fbeaea; border-color: #efc2bf; color: var(--danger); }
.question { font-size: 1.1rem; font-weight: 600; }
.hint, .empty { color: var(--muted); font-size: .9rem; }
.chip { display: inline-block; padding: .1rem .6rem; margin-right: .25rem; border: 1px solid var(--line); border-radius: 999px; background: #eef3ff; text-decoration: none; }
pre.value { background: #fff; border: 1px solid var(--line); padding: .75rem 1rem; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 1rem; }
dl.credentials { background: #fff; border: 1px solid var(--line); padding: .75rem 1rem; }
dl.credentials dt { font-weight: 600; color: var(--muted); font-size: .85rem; }
dl.credentials dd { margin: 0 0 .6rem; overflow-wrap: anywhere; }
code { font-family: ui-monospace, monospace; font-size: .9em; }
section.chain { max-width: none; margin-bottom: 1rem; }
section.chain h2 { margin-top: 0; }
section.chain.ok h2 { color: var(--ok); }
section.chain.broken { border-color: var(--danger); }
section.chain.broken h2 { color: var(--danger); }
.result-denied, .result-failed { color: var(--danger); font-weight: 600; }
`
