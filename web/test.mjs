// The web page's test, run by CI: serves the built page on 127.0.0.1, opens
// it in headless Chromium (WebGL2 through SwiftShader) and checks
//
//   1. the headless run in the page gives the native run's state hash
//      (the native hash is passed in: `--expect-hash HEX`);
//   2. the aquarium's screenshot self-test passes in the page (it drops a
//      predator, takes a picture and counts fish pixels, as natively), and
//      so does the 3D aquarium's (with --shot3d); each saves Chromium's own
//      picture of the page for a person to look at;
//
// and reports the page's tick time at 4,000 fish and its first frame.
//
//   node web/test.mjs --site DIR --expect-hash HEX --shot OUT.png [--shot3d OUT3D.png]
//
// Needs `playwright-core` (found through PLAYWRIGHT_CORE, the package's
// folder) and Chromium (CHROMIUM, default /usr/bin/chromium).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const fail = (message) => {
  console.error(`web test failed: ${message}`);
  process.exit(1);
};
for (const need of ["site", "expect-hash", "shot"]) if (!args[need]) fail(`--${need} is missing`);
const { chromium } = createRequire(import.meta.url)(process.env.PLAYWRIGHT_CORE ?? "playwright-core");

// A static server for the page, on a free port of 127.0.0.1 only.
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
const server = createServer(async (request, response) => {
  const file = new URL(request.url, "http://x").pathname.replace(/^\/$/, "/index.html");
  const full = path.join(args.site, path.normalize(file));
  try {
    const body = await readFile(full);
    response.writeHead(200, { "content-type": types[path.extname(full)] ?? "application/octet-stream" });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const site = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  // CI runs as root; WebGL2 on the CPU through SwiftShader.
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"],
});
const timer = setTimeout(() => fail("no result within 25 minutes"), 25 * 60 * 1000);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const log = [];
  // Bevy styles its console lines (`%c` and a style per part): keep the words.
  const words = (m) => m.text().replace(/%c/g, "").replace(/ color: .*$/, "");
  page.on("console", (m) => log.push(words(m)));
  page.on("pageerror", (e) => log.push(`page error: ${e.message}`));

  // The headless run: the same arguments as the native one CI compares with.
  const headless = async (argv) => {
    await page.goto(`${site}?headless=${encodeURIComponent(argv)}`);
    await page.waitForSelector("body[data-state]", { timeout: 10 * 60 * 1000 });
    const text = await page.textContent("#report");
    if ((await page.getAttribute("body", "data-state")) !== "done") fail(`headless run: ${text}\n${log.join("\n")}`);
    return text;
  };
  const run = await headless(args.argv ?? "--fish 3000 --ticks 120 --seed 7");
  const hash = run.match(/^state hash\s+([0-9a-f]+)$/m)?.[1];
  console.log(`web headless: ${run.split("\n").filter((l) => /^(fish|ticks|seed|state hash)/.test(l)).join("; ")}`);
  if (hash !== args["expect-hash"]) fail(`the page's state hash is ${hash}, the native run's ${args["expect-hash"]}`);
  console.log(`the page and the native run agree: state hash ${hash}`);
  const timed = await headless("--fish 4000 --ticks 300 --seed 7");
  console.log(`web headless at 4,000 fish: ${timed.match(/^ms per tick.*$/m)?.[0]}`);
  await page.close();

  // The aquariums and their self-tests, each in a fresh page.
  const selfTest = async (query, shot, viewport) => {
    const page = await browser.newPage({ viewport });
    const seen = [];
    page.on("console", (m) => seen.push(words(m)));
    page.on("pageerror", (e) => seen.push(`page error: ${e.message}`));
    await page.goto(`${site}?${query}`);
    let verdict = await page
      .waitForEvent("console", { predicate: (m) => /smoke test (passed|failed|ready)/.test(m.text()), timeout: 10 * 60 * 1000 })
      .then(words, () => null);
    const picture = await page.screenshot({ path: shot, timeout: 5 * 60 * 1000 });
    if (verdict?.includes("smoke test ready for its picture")) {
      // The 3D page cannot read back its own frame under WebGL2: it judges
      // this picture with the same rule instead.
      verdict = await page.evaluate(async (png) => {
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
        try {
          return `smoke test passed: ${window.judgePicture3d(bytes)} (Chromium's picture)`;
        } catch (e) {
          return `smoke test failed: ${e}`;
        }
      }, picture.toString("base64"));
      seen.push(verdict);
    }
    await page.close();
    for (const line of seen.filter((l) => /first frame|draw commands|replays|decision layer|smoke test|panicked|error/i.test(l))) {
      console.log(`page ${query}: ${line}`);
    }
    if (!verdict?.includes("smoke test passed")) fail(`the self-test of ?${query}: ${verdict ?? "no verdict"}`);
    console.log(`the self-test of ?${query} passed in the page; Chromium's picture in ${shot}`);
  };
  await selfTest("smoke", args.shot, { width: 1280, height: 720 });
  // Lit 3D frames drawn on the CPU take seconds each: fewer fish and
  // pixels keep the test within minutes.
  if (args.shot3d) await selfTest("3d&smoke&fish=1500", args.shot3d, { width: 960, height: 600 });
} finally {
  clearTimeout(timer);
  await browser.close();
  server.close();
}
