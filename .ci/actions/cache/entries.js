// The cache's entries: one directory each under $CI_ACTIONS_CACHE, named by a hash of its key and
// paths, holding the key and one copy of each path (0, 1, ...). cp -a keeps modes and links.
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = process.env.CI_ACTIONS_CACHE;
if (!root) {
  throw new Error('CI_ACTIONS_CACHE is not set: .ci/run names the directory that keeps the cache');
}

const lines = (s) => (s || '').split('\n').map((l) => l.trim()).filter(Boolean);
const paths = lines(process.env.INPUT_PATH).map((p) => p.replace(/^~(?=$|\/)/, os.homedir()));
const key = (process.env.INPUT_KEY || '').trim();
const version = crypto.createHash('sha256').update(paths.join('\n')).digest('hex');
const dirOf = (k) => path.join(root, crypto.createHash('sha256').update(`${version}\n${k}`).digest('hex').slice(0, 32));

// copy copies what from holds into to (a directory's content, or a file), replacing to.
function copy(from, to) {
  fs.rmSync(to, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('cp', ['-a', '--', from, to], { stdio: 'inherit' });
}

// find is the entry of key, else the newest whose key starts with a prefix (in order), or null.
function find(prefixes) {
  if (fs.existsSync(path.join(dirOf(key), 'key'))) return { dir: dirOf(key), key, exact: true };
  const all = fs.existsSync(root) ? fs.readdirSync(root) : [];
  const entries = all
    .map((d) => path.join(root, d))
    .filter((d) => fs.existsSync(path.join(d, 'version')) && fs.readFileSync(path.join(d, 'version'), 'utf8') === version)
    .map((d) => ({ dir: d, key: fs.readFileSync(path.join(d, 'key'), 'utf8'), time: fs.statSync(path.join(d, 'key')).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  for (const prefix of prefixes) {
    const e = entries.find((x) => x.key.startsWith(prefix));
    if (e) return { ...e, exact: false };
  }
  return null;
}

// restore copies entry e's paths back where they were.
function restore(e) {
  paths.forEach((p, i) => {
    const saved = path.join(e.dir, String(i));
    if (fs.existsSync(saved)) copy(saved, p);
  });
}

// save saves the paths under key, whole or not at all: into a new directory, renamed into place.
function save() {
  fs.mkdirSync(root, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(root, '.partial-'));
  paths.forEach((p, i) => {
    if (fs.existsSync(p)) copy(p, path.join(tmp, String(i)));
  });
  fs.writeFileSync(path.join(tmp, 'version'), version);
  fs.writeFileSync(path.join(tmp, 'key'), key);
  try {
    fs.renameSync(tmp, dirOf(key));
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    console.log(`cache: ${key} was saved meanwhile by another job`);
  }
}

module.exports = { key, paths, lines, find, restore, save, dirOf };
