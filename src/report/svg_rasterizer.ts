/**
 * resvg (WebAssembly) with its module and one font embedded: a PNG never depends on the fonts of the machine that
 * draws it. Roboto (OFL, from the `@expo-google-fonts/roboto` package) stands in for every sans-serif family.
 */
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import wasm from "@resvg/resvg-wasm/index_bg.wasm" with { type: "bytes" };
import roboto from "@expo-google-fonts/roboto/400Regular/Roboto_400Regular.ttf" with { type: "bytes" };

let initialized: Promise<void> | undefined;

/** Instantiates the wasm module once per process. */
export function initRasterizer(): Promise<void> {
  initialized ??= initWasm(wasm);
  return initialized;
}

/** PNG bytes of `svg`, scaled ×2, on white. Call {@link initRasterizer} first. */
export function rasterize(svg: string): Uint8Array {
  const resvg = new Resvg(svg, {
    background: "#ffffff",
    fitTo: { mode: "zoom", value: 2 },
    font: {
      fontBuffers: [roboto],
      loadSystemFonts: false,
      defaultFontFamily: "Roboto",
      sansSerifFamily: "Roboto",
    },
  });
  const rendered = resvg.render();
  try {
    return rendered.asPng();
  } finally {
    rendered.free();
    resvg.free();
  }
}
