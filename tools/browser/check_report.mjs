// Opens one of `usi-engine analyze`'s game pages in headless Chromium, as a person
// would: collects every console error and page error, counts the graph's points,
// clicks the points given and reads back the board each click drew (the SFEN it was
// drawn from and every piece on it), and optionally saves a screenshot.
//
//   node check_report.mjs PAGE.html [--click 0,5,12] [--screenshot out.png]
//
// Prints one JSON object: {errors, points, point_plies, clicks: [{index, ply, sfen,
// pieces: {square: piece}, played: [squares], best: [squares]}]}.
// Chromium: $CHROMIUM, else /usr/bin/chromium (Debian's package).
import puppeteer from "puppeteer-core";
import { pathToFileURL } from "node:url";
import path from "node:path";

const args = process.argv.slice(2);
const page_path = args[0];
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const clicks = (option("--click") || "").split(",").filter((x) => x !== "").map(Number);
const screenshot = option("--screenshot");

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"],
});
const errors = [];
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 900 });
  page.on("console", (message) => {
    if (message.type() === "error") errors.push("console: " + message.text());
  });
  page.on("pageerror", (error) => errors.push("page: " + error.message));
  page.on("requestfailed", (request) => errors.push("request: " + request.url()));
  await page.goto(pathToFileURL(path.resolve(page_path)).href, { waitUntil: "load" });
  const point_plies = await page.$$eval(".point", (points) => points.map((p) => Number(p.dataset.ply)));
  const move_numbers = await page.$$eval(".move-number", (labels) => labels.map((l) => l.textContent));
  const results = [];
  for (const index of clicks) {
    const point = await page.$(`.point[data-index="${index}"]`);
    if (!point) {
      results.push({ index, missing: true });
      continue;
    }
    await point.click();
    results.push(await page.evaluate((index) => {
      const board = document.getElementById("board");
      const pieces = {};
      board.querySelectorAll(".piece").forEach((p) => { pieces[p.dataset.square] = p.dataset.piece; });
      const squares = (cls) => [...board.querySelectorAll("." + cls)].map((e) => e.dataset.square);
      return {
        index, ply: Number(document.getElementById("current").textContent),
        sfen: board.getAttribute("data-sfen"), pieces,
        played: squares("played-move"), best: squares("best-move"),
        selected: [...document.querySelectorAll(".point.sel")].map((p) => Number(p.dataset.index)),
      };
    }, index));
  }
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify({ errors, points: point_plies.length, point_plies, move_numbers,
                               clicks: results }));
} finally {
  await browser.close();
}
