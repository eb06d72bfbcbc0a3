/**
 * What the fetch tool needs from the outside: name resolution and a connection to one checked
 * address (src/sys/fetch_net.ts has Deno's), and Deno's permission verdicts on each host it is
 * sent to (the sandbox's engine: the tool Worker's permissions and the deny list).
 */

/** A response whose body is read (or cancelled) by the caller, who then calls `close`. */
export interface FetchedResponse {
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
  /** Releases the connection. Idempotent. */
  close(): void;
}

/** Network operations of fetch. */
export interface FetchNet {
  /** The addresses `hostname` resolves to (an IP address: itself); rejects when it does not. */
  resolve(hostname: string): Promise<string[]>;
  /**
   * GET `url` over a connection to `address` (never a second lookup of the URL's name; TLS still
   * verifies the name); redirects are not followed. Rejects when the connection fails or
   * `signal` aborts.
   */
  request(url: URL, options: { address: string; signal: AbortSignal }): Promise<FetchedResponse>;
}

/** Deno's verdict on net access to one "host:port". */
export type NetVerdict = "granted" | "prompt" | "denied";

/** The grants as fetch asks about them. */
export interface FetchPermissions {
  /** Deno's verdict on "host:port" under the current grants; must not reject. */
  query(target: string): Promise<NetVerdict>;
  /** The current `--allow-net` scope (its entries name hosts explicitly). */
  net(): true | readonly string[];
  /** The whole flag that grants `target` and keeps the hosts granted already. */
  flag(target: string): string;
  /**
   * Receives Deno's verdict on each redirect hop, with the refusal told to the model (the first
   * host is the policy's). Must not throw.
   */
  report?(
    who: { toolCallId: string },
    decision: { target: string; verdict: NetVerdict; reason?: string },
  ): void;
}
