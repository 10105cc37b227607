// actions/cache's main step: restore (entries.js). The key is kept for the post step as it is
// now, as actions/cache keeps it: hashFiles may read otherwise once the job has run.
const fs = require('node:fs');
const { lines, find, restore } = require('./entries.js');

const key = (process.env.INPUT_KEY || '').trim();
const e = find(key, lines(process.env['INPUT_RESTORE-KEYS']));
if (e) {
  restore(e);
  console.log(`cache: restored ${e.key}${e.exact ? '' : ` for ${key}`}`);
} else {
  console.log(`cache: nothing saved for ${key}`);
}
fs.appendFileSync(process.env.GITHUB_OUTPUT, `cache-hit=${Boolean(e && e.exact)}\n`);
fs.appendFileSync(process.env.GITHUB_STATE, `key=${key}\nhit=${Boolean(e && e.exact)}\n`);
