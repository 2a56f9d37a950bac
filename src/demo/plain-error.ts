// What the page says when something fails: one sentence in a user's words (what is wrong with the file or
// the address, what to do), and the technical message behind it, shown under a "Details" disclosure. The
// sentences are read from the decoder's messages (src/model/safetensors.ts, weights.ts, npy.ts, the URL
// loader of sources.ts); a message none of them matches is shown as it is.
import { DecoderError } from '../gpu/errors';
import { errorText } from './error-text';

export interface Plain {
  /** one or two sentences for the user */
  text: string;
  /** the technical message (with the decoder's error code), '' when the text already is that */
  details: string;
}

/** Thrown when the page's Content Security Policy blocked a URL (csp-watch.ts). */
export class CspBlocked extends Error {
  constructor(
    readonly url: string,
    readonly directive: string,
  ) {
    super(`the page's Content-Security-Policy (${directive}) blocked ${url}`);
    this.name = 'CspBlocked';
  }
}

/** Thrown when a download stopped part-way (the connection closed before the body was complete). */
export class DownloadInterrupted extends Error {
  constructor(
    readonly url: string,
    readonly received: number,
    readonly total: number | null,
    cause: unknown,
  ) {
    super(`download of ${url} stopped after ${received}${total ? ` of ${total}` : ''} bytes: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DownloadInterrupted';
  }
}

const RULES: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/header length (\d+) does not fit the file \((\d+) bytes\)/, (m) => `This file is not a safetensors file (its header says ${m[1]} bytes, the file has ${m[2]}).`],
  [/(\d+) bytes(?: \(Content-Length\))?, too short for a safetensors header/, (m) => `This file is not a safetensors file (it has only ${m[1]} bytes).`],
  [/header is (?:not valid JSON|JSON but not an object of tensors)/, () => 'This file is not a safetensors file (its header is not a list of tensors).'],
  [/no decoder tensors found/, () => 'This file holds no VAE decoder (no decoder.* tensors: an encoder-only file, or another model). Open a Wan VAE file that has the decoder.'],
  // the decoder's first tensor absent: no decoder at all (an encoder-only file keeps encoder.* only)
  [
    /missing tensor decoder\.conv1\.weight$/,
    () => 'This file holds no VAE decoder (not even its first tensor, decoder.conv1.weight: an encoder-only file, or another model). Open a Wan VAE file that has the decoder.',
  ],
  [/missing tensor (\S+)/, (m) => `This file is not a complete Wan VAE decoder: it lacks the tensor ${m[1]}.`],
  [/tensor (\S+) has shape \[([^\]]*)\], expected \[([^\]]*)\]/, (m) => `This file is not a Wan VAE decoder of a known shape: its tensor ${m[1]} is [${m[2]}], a Wan decoder's is [${m[3]}].`],
  [/file truncated or corrupt|truncated\?/, () => 'This file is cut short or damaged: download or copy it again.'],
  [/not a \.npy file/, () => 'This file is not a .npy file.'],
  [/could not fetch (\S+): HTTP 404/, (m) => `Nothing was found at ${m[1]} (the server answered 404 Not Found): check the address.`],
  [/could not fetch (\S+): HTTP (\d+)/, (m) => `The server of ${m[1]} refused the download (HTTP ${m[2]}).`],
  [
    /could not fetch (\S+): .*(?:network error|cross-origin)/,
    (m) => `Could not download ${m[1]}: the server did not answer, or it does not let other sites download its files (CORS). Check the address, or download the file and open it with File.`,
  ],
  [
    /the decoder worker failed to start/,
    () =>
      "The page's decoder (a Web Worker) did not start: one of its files did not load, or this browser blocks workers. Reload the page; if that does not help, the site is missing a file of its build.",
  ],
  [/not a valid URL: (.*)/, (m) => `"${m[1]}" is not a web address (https://…). A file on this computer opens with File.`],
];

export function plainError(e: unknown): Plain {
  const tech = errorText(e) + (e instanceof DecoderError ? ` [${e.code}]` : '');
  if (e instanceof CspBlocked)
    return {
      text: `This page may only download from http(s) addresses, and ${e.url.slice(0, 120)} is not one, so the browser blocked it (the page's security policy, not the server). Check the address; a file on this computer opens with File.`,
      details: tech,
    };
  if (e instanceof DownloadInterrupted) return { text: `The download stopped part-way (the connection closed): nothing was loaded or kept. Try again.`, details: tech };
  const msg = e instanceof Error ? e.message : String(e);
  for (const [re, say] of RULES) {
    const m = msg.match(re);
    if (m) return { text: say(m), details: tech };
  }
  return { text: errorText(e), details: e instanceof DecoderError ? `[${e.code}] ${e.message}` : '' };
}
