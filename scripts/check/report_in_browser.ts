/**
 * `deno run -A scripts/check/report_in_browser.ts <report.html> [screenshot.png]`: opens a report in headless
 * Chromium (Debian package `chromium`) over the DevTools protocol and fails (exit 1) on any console error, uncaught
 * exception, log error (a CSP violation is one) or network request other than the page itself, or when a chart box
 * stays empty; then saves a full-page screenshot (default: beside the report, `.png` for `.html`).
 */
const [reportArg, shotArg] = Deno.args;
if (reportArg === undefined) {
  console.error("usage: report_in_browser.ts <report.html> [screenshot.png]");
  Deno.exit(2);
}
const report = await Deno.realPath(reportArg);
const screenshot = shotArg ?? report.replace(/\.html?$/, "") + ".png";
const pageUrl = `file://${report}`;

function findChromium(): string {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    for (const dir of ["/usr/bin", "/usr/local/bin", "/snap/bin"]) {
      try {
        Deno.statSync(`${dir}/${name}`);
        return `${dir}/${name}`;
      } catch { /* next */ }
    }
  }
  console.error("no Chromium found: install it (Debian: apt-get install -y chromium)");
  Deno.exit(2);
}

const profile = await Deno.makeTempDir({ prefix: "infermeter-chromium-" });
const browser = new Deno.Command(findChromium(), {
  args: [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--remote-debugging-port=0",
    `--user-data-dir=${profile}`,
    "--window-size=1400,1000",
    "about:blank",
  ],
  stdout: "null",
  stderr: "piped",
}).spawn();

const problems: string[] = [];
try {
  // Chromium prints its DevTools endpoint on stderr once it listens.
  const reader = browser.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let endpoint: string | undefined;
  while (endpoint === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`Chromium exited before listening:\n${text}`);
    text += value;
    endpoint = /DevTools listening on (ws:\/\/\S+)/.exec(text)?.[1];
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  const port = new URL(endpoint).port;
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as {
    type: string;
    webSocketDebuggerUrl: string;
  }[];
  const page = targets.find((t) => t.type === "page")!;
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let nextId = 1;
  const pending = new Map<number, (result: Record<string, unknown>) => void>();
  const listeners: ((method: string, params: Record<string, unknown>) => void)[] = [];
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.id !== undefined) {
      if (msg.error) problems.push(`DevTools error: ${JSON.stringify(msg.error)}`);
      pending.get(msg.id)?.(msg.result ?? {});
      pending.delete(msg.id);
    } else for (const l of listeners) l(msg.method, msg.params);
  };
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });

  let loaded: () => void;
  const load = new Promise<void>((resolve) => (loaded = resolve));
  const requests: string[] = [];
  listeners.push((method, params) => {
    if (method === "Network.requestWillBeSent") {
      const url = (params.request as { url: string }).url;
      if (url !== pageUrl) requests.push(url);
    } else if (method === "Runtime.consoleAPICalled" && ["error", "assert"].includes(String(params.type))) {
      problems.push(`console.${params.type}: ${JSON.stringify(params.args)}`);
    } else if (method === "Runtime.exceptionThrown") {
      problems.push(`uncaught exception: ${JSON.stringify(params.exceptionDetails)}`);
    } else if (method === "Log.entryAdded") {
      const entry = params.entry as { level: string; text: string; url?: string };
      if (entry.level === "error") problems.push(`log error: ${entry.text} ${entry.url ?? ""}`);
    } else if (method === "Page.loadEventFired") loaded();
  });
  await send("Network.enable");
  await send("Runtime.enable");
  await send("Log.enable");
  await send("Page.enable");
  await send("Page.navigate", { url: pageUrl });
  await Promise.race([
    load,
    new Promise((_, reject) => setTimeout(() => reject(new Error("the page did not load in 30 s")), 30_000)),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // charts draw right after load; late errors show here

  const check = await send("Runtime.evaluate", {
    returnByValue: true,
    expression: `(() => {
      const boxes = [...document.querySelectorAll(".chart")];
      return {
        boxes: boxes.length,
        drawn: boxes.filter((b) => b.querySelector("svg path, svg text") !== null).length,
        declared: document.body.getAttribute("data-charts-drawn"),
      };
    })()`,
  });
  const state = (check.result as { value: { boxes: number; drawn: number; declared: string | null } }).value;
  if (state.drawn !== state.boxes) problems.push(`${state.boxes - state.drawn} of ${state.boxes} charts are empty`);
  for (const url of requests) problems.push(`network request: ${url}`);

  const metrics = await send("Page.getLayoutMetrics");
  const size = metrics.cssContentSize as { width: number; height: number };
  const shot = await send("Page.captureScreenshot", {
    format: "png",
    captureBeyondViewport: true,
    clip: { x: 0, y: 0, width: Math.ceil(size.width), height: Math.min(Math.ceil(size.height), 16000), scale: 1 },
  });
  await Deno.writeFile(screenshot, Uint8Array.from(atob(shot.data as string), (c) => c.charCodeAt(0)));
  ws.close();
  console.log(
    `${state.drawn}/${state.boxes} charts drawn, ${requests.length} network requests; screenshot ${screenshot}`,
  );
} catch (e) {
  problems.push(e instanceof Error ? e.message : String(e));
} finally {
  browser.kill("SIGTERM");
  await browser.status;
  await Deno.remove(profile, { recursive: true }).catch(() => {});
}
if (problems.length > 0) {
  console.error(`FAILED: ${report}\n${problems.map((p) => `  ${p}`).join("\n")}`);
  Deno.exit(1);
}
