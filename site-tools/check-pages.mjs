// Checks gauntlet's built documentation site, as `make pages` runs it:
//   1. html-validate (recommended rules) on every page: zero errors and zero warnings;
//   2. axe-core's WCAG 2.0/2.1/2.2 A and AA rules on every page, in the light and the dark
//      colour scheme, at 1280 and 360 px wide, in Debian's headless Chromium: zero violations;
//   3. no page body scrolls sideways at either width (wide tables scroll in their own box);
//   4. a full-page screenshot of each page at each width and scheme, under SITE/_shots/.
// The pages are served by this script on 127.0.0.1; the browser may fetch nothing else.
// Everything is bounded: one deadline for the whole check, and a timeout on every step.
//
// Usage: node site-tools/check-pages.mjs [SITE_DIR]   (exit 0 clean, 1 problems, 2 could not run)
// PAGES_VERBOSE=1 also lists what axe could not decide ("needs review"), e.g. contrast of text
// scrolled out of view inside a wide table; the palette's contrast is checked in Python.

import { createReadStream, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { HtmlValidate } from 'html-validate';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = require.resolve('axe-core/axe.min.js');

const SITE = path.resolve(process.argv[2] ?? 'site');
const SHOTS = path.join(SITE, '_shots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DEADLINE_MS = Number(process.env.PAGES_DEADLINE_MS ?? 240_000);
const STEP_MS = 30_000;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const SCHEMES = ['light', 'dark'];
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 360, height: 740 },
];
// The launch flags known to work on these machines: no sandbox (root), no GPU, and nothing
// that phones home, since the network is closed.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

function serve(root) {
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const wanted = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
      const file = path.resolve(root, `.${path.posix.normalize(wanted)}`);
      const info = file.startsWith(root + path.sep) ? await stat(file) : null;
      if (!info?.isFile() || !(path.extname(file) in TYPES)) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      response.writeHead(200, { 'content-type': TYPES[path.extname(file)] });
      createReadStream(file).pipe(response);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function validateHtml(files) {
  const validator = new HtmlValidate({ extends: ['html-validate:recommended'] });
  const found = new Map();
  for (const file of files) {
    const report = await validator.validateFile(path.join(SITE, file));
    const messages = report.results.flatMap((result) => result.messages);
    found.set(file, {
      errors: messages.filter((m) => m.severity === 2),
      warnings: messages.filter((m) => m.severity === 1),
    });
  }
  return found;
}

async function checkInBrowser(context, base, files) {
  const found = new Map();
  const page = await context.newPage();
  for (const file of files) {
    const runs = [];
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
        await page.goto(`${base}/${file}`, { waitUntil: 'load', timeout: STEP_MS });
        await page.addScriptTag({ path: AXE_SOURCE });
        const axe = await page.evaluate(
          (tags) =>
            // eslint-disable-next-line no-undef
            window.axe.run(document, {
              runOnly: { type: 'tag', values: tags },
              resultTypes: ['violations', 'incomplete'],
            }),
          AXE_TAGS,
        );
        const overflow = await page.evaluate(() => {
          const root = document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        const stem = `${path.basename(file, '.html')}-${viewport.width}-${scheme}`;
        await page.screenshot({ path: path.join(SHOTS, `${stem}.png`), fullPage: true, timeout: STEP_MS });
        runs.push({
          label: `${scheme}@${viewport.width}`,
          violations: axe.violations,
          incomplete: axe.incomplete.length,
          review: axe.incomplete.map((item) => `${item.id}: ${item.nodes.map((n) => n.target.join(' ')).join('; ')}`),
          overflow,
        });
      }
    }
    found.set(file, runs);
  }
  await page.close();
  return found;
}

function describeViolation(violation) {
  const where = violation.nodes.slice(0, 5).map((node) => node.target.join(' ')).join('; ');
  return `${violation.id} (${violation.impact}): ${violation.help} [${violation.nodes.length}: ${where}]`;
}

let profile;

async function main() {
  const files = (await readdir(SITE)).filter((name) => name.endsWith('.html')).sort();
  if (files.length === 0) {
    console.error(`check-pages: no .html files in ${SITE}; run \`make site\` first`);
    return 2;
  }
  await rm(SHOTS, { recursive: true, force: true });
  await mkdir(SHOTS, { recursive: true });

  const html = await validateHtml(files);

  profile = await mkdtemp(path.join(tmpdir(), 'gauntlet-pages-'));
  let server;
  let context;
  try {
    server = await serve(SITE);
    const base = `http://127.0.0.1:${server.address().port}`;
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: STEP_MS,
      viewport: VIEWPORTS[0],
    });
    context.setDefaultTimeout(STEP_MS);
    // Only the site itself may load: anything else would make the check depend on a network.
    await context.route('**/*', (route) =>
      route.request().url().startsWith(`${base}/`) ? route.continue() : route.abort(),
    );
    const browser = await checkInBrowser(context, base, files);

    let problems = 0;
    let runs = 0;
    for (const file of files) {
      const { errors, warnings } = html.get(file);
      const axeRuns = browser.get(file);
      runs += axeRuns.length;
      const cells = axeRuns.map((run) => `${run.label} ${run.violations.length}`).join(', ');
      console.log(
        `${file.padEnd(16)} html-validate: ${errors.length} errors, ${warnings.length} warnings | axe violations: ${cells}`,
      );
      for (const message of [...errors, ...warnings]) {
        problems += 1;
        console.log(`  html-validate ${message.ruleId} ${message.line}:${message.column}: ${message.message}`);
      }
      for (const run of axeRuns) {
        for (const violation of run.violations) {
          problems += 1;
          console.log(`  axe ${run.label}: ${describeViolation(violation)}`);
        }
        if (process.env.PAGES_VERBOSE) {
          for (const item of run.review) console.log(`  axe ${run.label} needs review: ${item}`);
        }
        if (run.overflow > 0) {
          problems += 1;
          console.log(`  ${run.label}: the page body scrolls sideways by ${run.overflow}px`);
        }
      }
    }
    const incomplete = [...browser.values()].flat().reduce((sum, run) => sum + run.incomplete, 0);
    console.log(
      `${files.length} pages; ${runs} axe runs (${SCHEMES.join('/')} x ${VIEWPORTS.map((v) => v.width).join('/')} px, ` +
        `tags ${AXE_TAGS.join(' ')}); ${incomplete} axe results need review by hand; ` +
        `screenshots in ${path.relative(process.cwd(), SHOTS) || SHOTS}`,
    );
    console.log(problems === 0 ? 'pages: OK, no problems' : `pages: ${problems} problems`);
    return problems === 0 ? 0 : 1;
  } finally {
    await context?.close().catch(() => {});
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    await rm(profile, { recursive: true, force: true });
  }
}

const deadline = setTimeout(() => {
  console.error(`check-pages: gave up after ${DEADLINE_MS / 1000} s`);
  // playwright-core ends the browser it launched when this process exits.
  if (profile) rmSync(profile, { recursive: true, force: true });
  process.exit(2);
}, DEADLINE_MS);

main()
  .then((code) => {
    clearTimeout(deadline);
    process.exitCode = code;
  })
  .catch((error) => {
    clearTimeout(deadline);
    console.error(`check-pages: could not run: ${error?.stack ?? error}`);
    process.exitCode = 2;
  });
