/** The peers' metrics file of a run directory (its own module, so naming it loads none of the peers' code). */
export const PEER_METRICS_FILE = "peer_metrics.json";
