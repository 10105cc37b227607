// actions/cache's post step, after a successful job: save what the key had no entry for
// (entries.js).
const { save } = require('./entries.js');

const key = process.env.STATE_key;
if (process.env.STATE_hit === 'true') {
  console.log(`cache: ${key} was restored whole; not saved again`);
} else if (save(key)) {
  console.log(`cache: saved ${key}`);
} else {
  console.log(`cache: nothing to save for ${key}: none of its paths exists`);
}
