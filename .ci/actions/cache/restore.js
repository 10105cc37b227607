// actions/cache's main step: restore (entries.js).
const fs = require('node:fs');
const { key, lines, find, restore } = require('./entries.js');

const e = find(lines(process.env['INPUT_RESTORE-KEYS']));
if (e) {
  restore(e);
  console.log(`cache: restored ${e.key}${e.exact ? '' : ` for ${key}`}`);
} else {
  console.log(`cache: nothing saved for ${key}`);
}
fs.appendFileSync(process.env.GITHUB_OUTPUT, `cache-hit=${Boolean(e && e.exact)}\n`);
fs.appendFileSync(process.env.GITHUB_STATE, `hit=${Boolean(e && e.exact)}\n`);
