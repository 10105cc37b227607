// actions/cache's post step, after a successful job: save what key had no entry for (entries.js).
const { key, save } = require('./entries.js');

if (process.env.STATE_hit === 'true') {
  console.log(`cache: ${key} was restored whole; not saved again`);
} else {
  save();
  console.log(`cache: saved ${key}`);
}
