/** `profile` options of the "Service" group: the run's process: logging, the live API, workers of the measuring side. */
import { LOG_LEVELS } from "./log_levels.ts";
import { optionGroup } from "./option_group.ts";

export const SERVICE_OPTIONS = optionGroup("Service", [
  {
    key: "logLevel",
    type: "enum",
    choices: LOG_LEVELS,
    default: "INFO",
    flags: ["--log-level"],
    env: "INFERMETER_LOG_LEVEL",
    help: "Least severe log level written to stderr.",
  },
  {
    key: "logLevel",
    type: "switch",
    value: "DEBUG",
    flags: ["--verbose"],
    short: "-v",
    help: "Same as --log-level DEBUG.",
  },
  {
    key: "logLevel",
    type: "switch",
    value: "TRACE",
    flags: ["--extra-verbose"],
    short: "-vv",
    help: "Same as --log-level TRACE.",
  },
  {
    key: "apiPort",
    type: "int",
    min: 1,
    max: 65535,
    flags: ["--api-port"],
    metavar: "<port>",
    env: "INFERMETER_API_SERVER_PORT",
    envAliases: ["AIPERF_API_SERVER_PORT"],
    yaml: ["benchmark.runtime.api_port"],
    defaultDescription: "no API server",
    help: "Serve the live HTTP API (/api/*, Prometheus /metrics, /docs) on this port while the run lasts.",
  },
  {
    key: "apiHost",
    type: "string",
    default: "127.0.0.1",
    flags: ["--api-host"],
    metavar: "<host>",
    env: "INFERMETER_API_SERVER_HOST",
    envAliases: ["AIPERF_API_SERVER_HOST"],
    yaml: ["benchmark.runtime.api_host"],
    help: "Address the API server binds; 0.0.0.0 exposes it beyond this machine.",
  },
  {
    key: "apiAllowedHosts",
    type: "list",
    items: "text",
    default: [],
    flags: ["--api-allowed-hosts"],
    repeatable: true,
    metavar: "<hosts>",
    env: "INFERMETER_API_ALLOWED_HOSTS",
    yaml: ["benchmark.runtime.api_allowed_hosts"],
    defaultDescription: "IP addresses, localhost and the --api-host name only",
    help: "Host names the API answers besides IP addresses, localhost and the --api-host name (DNS rebinding " +
      "protection): exact names, .example.com for a domain and its subdomains, * for any.",
  },
  {
    key: "apiKeepAlive",
    type: "float",
    default: 5,
    min: 0,
    max: 86400,
    flags: ["--api-keep-alive"],
    metavar: "<seconds>",
    env: "INFERMETER_API_SERVER_KEEP_ALIVE",
    // AIPerf keeps its API listener open this long after a run (AIPERF_API_SERVER_POST_COMPLETE_GRACE, 5 s), so a
    // run started in the background can still be asked for its results.
    envAliases: ["AIPERF_API_SERVER_POST_COMPLETE_GRACE"],
    yaml: ["benchmark.runtime.api_keep_alive"],
    help: "Keep the API server up this many seconds after the run so results can be fetched (Ctrl-C ends it; " +
      "0: close with the run).",
  },
]);
