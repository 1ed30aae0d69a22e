/**
 * Opens the connections of one {@linkcode Target}: TCP (spread round-robin over the target's addresses), then
 * TLS for https, within a time limit kept on the client's deadline queue.
 */
import type { Target } from "./http_exchange.ts";
import { Connection, type Progress } from "./connection.ts";
import { BodySlab } from "./body_slab.ts";
import { socketOps } from "../runtime/socket_ops.ts";
import type { DeadlineQueue } from "../timing/deadline_queue.ts";
import type { TurnStamp } from "../timing/turn_stamp.ts";
import { closedError, errorText, type ExchangeState, hostPort, type SendControl } from "./send_control.ts";

export interface ConnectorOptions {
  /** Budget for TCP connect plus TLS handshake. */
  readonly connectTimeoutMs: number;
  readonly caCerts: string[] | undefined;
  readonly skipHostnameVerification: boolean;
  readonly readBufferBytes: number;
  /** Keep a second read posted on plain-TCP connections read through the public methods. */
  readonly pipelinedReads: boolean;
  readonly directSocketOps: boolean;
  /** Most body bytes one response may have (as received and as decoded). */
  readonly maxResponseBytes: number;
}

export class Connector {
  readonly #target: Target;
  readonly #hosts: readonly string[];
  #nextHost = 0;
  readonly #remote: string;
  readonly #options: ConnectorOptions;
  readonly #deadlines: DeadlineQueue;
  readonly #turn: TurnStamp;
  readonly #progress: Progress;
  /** One slab of small bodies for all of this client's connections. */
  readonly #slab = new BodySlab();

  constructor(
    target: Target,
    options: ConnectorOptions,
    deadlines: DeadlineQueue,
    turn: TurnStamp,
    progress: Progress = { at: 0 },
  ) {
    this.#progress = progress;
    this.#target = target;
    this.#hosts = [target.hostname, ...(target.extraHostnames ?? [])];
    this.#remote = hostPort(target.hostname, target.port);
    this.#options = options;
    this.#deadlines = deadlines;
    this.#turn = turn;
  }

  /**
   * Opens a connection within `connectTimeoutMs`; undefined with `ex.error` on failure. `ctl` interrupts it
   * (deadline, cancel); `isClosed` says whether the client was closed meanwhile.
   */
  async connect(ex: ExchangeState, ctl: SendControl, isClosed: () => boolean): Promise<Connection | undefined> {
    const target = this.#target;
    const { connectTimeoutMs } = this.#options;
    const hostname = this.#hosts[this.#nextHost];
    this.#nextHost = (this.#nextHost + 1) % this.#hosts.length;
    const aborter = new AbortController();
    let pending: Deno.Conn | undefined;
    let timedOut = false;
    const abortConnect = () => {
      aborter.abort();
      try {
        pending?.close();
      } catch {
        // Already closed.
      }
    };
    const deadline = this.#deadlines.add(performance.now() + connectTimeoutMs, () => {
      timedOut = true;
      abortConnect();
    });
    ctl.onInterrupt = abortConnect;
    let socket: Deno.Conn;
    let phase = "TCP connect to";
    try {
      const tcp = await Deno.connect({ hostname, port: target.port, signal: aborter.signal });
      pending = tcp;
      tcp.setNoDelay(true);
      if (target.scheme === "https") {
        phase = "TLS handshake with";
        // SNI and certificate checks use the target's name even when the socket goes to an extra address.
        const tls = await Deno.startTls(tcp, {
          hostname: target.hostname,
          caCerts: this.#options.caCerts,
          unsafelyDisableHostnameVerification: this.#options.skipHostnameVerification,
        });
        pending = tls;
        await tls.handshake();
        socket = tls;
      } else {
        socket = tcp;
      }
      if (ctl.reason !== undefined || timedOut || isClosed()) throw new Error("interrupted");
    } catch (e) {
      abortConnect();
      if (ctl.reason !== undefined) ex.error = ctl.error();
      else if (isClosed()) ex.error = closedError();
      else if (timedOut) {
        ex.error = {
          kind: "connect_timeout",
          message: `${phase} ${
            hostPort(hostname, target.port)
          } took longer than ${connectTimeoutMs} ms; check the address or raise the connect timeout.`,
        };
      } else {
        ex.error = {
          kind: "connect",
          message: `${phase} ${hostPort(hostname, target.port)} failed (${errorText(e)}); ${
            phase === "TCP connect to"
              ? "check that the server is running and the URL is right"
              : "check the server's certificate or pass its CA in caCerts"
          }.`,
        };
      }
      return undefined;
    } finally {
      this.#deadlines.cancel(deadline);
      ctl.onInterrupt = undefined;
    }
    ex.connectEnd = performance.now();
    const io = socketOps(socket, this.#options.directSocketOps);
    // Plain TCP only: a read posted ahead on a TLS stream is not something this client has been measured with.
    const pipelined = this.#options.pipelinedReads && !io.direct && target.scheme !== "https";
    const bufferBytes = this.#options.readBufferBytes;
    return new Connection(
      socket,
      io,
      this.#remote,
      bufferBytes,
      pipelined,
      this.#turn,
      this.#deadlines,
      this.#options.maxResponseBytes,
      this.#progress,
      this.#slab,
    );
  }
}
