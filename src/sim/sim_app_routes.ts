/**
 * The simulator app's own routes besides `SIM_ROUTES` and `SERVER_INFO_ROUTES`, for `serve-sim --help` (`note`: when
 * it is served). Its own module, so the help's option table loads no HTTP framework.
 */
export const SIM_APP_ROUTES: readonly { readonly method: "GET"; readonly path: string; readonly note?: string }[] = [
  { method: "GET", path: "/v1/models" },
  { method: "GET", path: "/dcgm/metrics", note: "with --dcgm-gpus" },
];
