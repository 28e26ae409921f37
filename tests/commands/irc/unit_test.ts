/** The irc command's pure parts: wire format, splitting, sanitising, ring, throttle, config, bounds, store. */

import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "dotenv";
import { TRUNCATION_MARKER } from "../../../core/truncate.ts";
import { PtermError } from "../../../core/errors.ts";
import { join } from "../../../core/fs/path.ts";
import { boundBatch, BOUNDS } from "../../../commands/irc/bounds.ts";
import { configFromValues, quoteHashValues } from "../../../commands/irc/config.ts";
import type { StoredMessage } from "../../../commands/irc/daemon_protocol.ts";
import { indicatorFor } from "../../../commands/irc/daemon_protocol.ts";
import { Forwarder } from "../../../commands/irc/forward.ts";
import {
  formatLine,
  maxTextBytes,
  parseLine,
  privmsgTexts,
  RELAY_PREFIX_RESERVE,
  splitUtf8,
  utf8Bytes,
} from "../../../commands/irc/protocol.ts";
import { Ring } from "../../../commands/irc/ring.ts";
import { sanitizeText } from "../../../commands/irc/sanitize.ts";
import { logFileName, MAX_RESIDENT_CONVERSATIONS, MessageStore } from "../../../commands/irc/store.ts";
import { LineThrottle } from "../../../commands/irc/throttle.ts";
import { makeRoot } from "../../_support/helpers.ts";

Deno.test("parseLine: tags, prefix, params, trailing", () => {
  assert.deepEqual(parseLine("@time=2026-01-01T00:00:00Z;x=a\\sb :nick!u@h PRIVMSG #c :hello  world "), {
    tags: { time: "2026-01-01T00:00:00Z", x: "a b" },
    prefix: "nick!u@h",
    command: "PRIVMSG",
    params: ["#c", "hello  world "],
  });
  assert.deepEqual(parseLine("PING :abc"), { tags: {}, prefix: null, command: "PING", params: ["abc"] });
  assert.deepEqual(parseLine(":srv 001 me :Welcome"), {
    tags: {},
    prefix: "srv",
    command: "001",
    params: ["me", "Welcome"],
  });
  assert.equal(parseLine(""), null);
  assert.equal(parseLine(":only-prefix"), null);
});

Deno.test("formatLine: no parameter can end the line or add a command", () => {
  assert.equal(formatLine("PRIVMSG", ["#c", "hi there"]), "PRIVMSG #c :hi there");
  assert.equal(formatLine("JOIN", ["#c", "key"]), "JOIN #c key");
  assert.equal(formatLine("PRIVMSG", ["#c", ":starts with colon"]), "PRIVMSG #c ::starts with colon");
  for (const bad of ["a\r\nQUIT", "a\nb", "a\rb", "a\0b"]) {
    assert.throws(() => formatLine("PRIVMSG", ["#c", bad]));
  }
  assert.throws(() => formatLine("PRIVMSG", ["#c d", "x"]), "a middle parameter with a space");
  assert.throws(() => formatLine("PRIV MSG", []));
});

Deno.test("splitUtf8: pieces fit, never split a character, join back to the line", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 8, max: 120 }), (text, max) => {
      const pieces = splitUtf8(text, max);
      assert.equal(pieces.join(""), text);
      for (const piece of pieces) {
        assert.ok(utf8Bytes(piece) <= max, `${utf8Bytes(piece)} > ${max}`);
        assert.ok(!/[\uD800-\uDBFF]$/.test(piece) && !/^[\uDC00-\uDFFF]/.test(piece), "no split surrogate pair");
      }
    }),
  );
  assert.deepEqual(splitUtf8("aaaa bbbb", 6), ["aaaa", " bbbb"], "breaks before a space");
  assert.deepEqual(splitUtf8("👩‍👩‍👧👩‍👩‍👧", 20), ["👩‍👩‍👧", "👩‍👩‍👧"], "keeps a ZWJ family (18 bytes) whole");
});

Deno.test("privmsgTexts: line breaks separate messages, controls vanish, long lines split", () => {
  assert.deepEqual(privmsgTexts("a\r\nQUIT :x\rb\n\n\x01DCC\x01 \x1b[31mred", "#c"), ["a", "QUIT :x", "b", "DCC red"]);
  const max = maxTextBytes("#lemon");
  assert.equal(max, 512 - 2 - utf8Bytes("PRIVMSG #lemon :") - RELAY_PREFIX_RESERVE);
  const long = "é".repeat(1000);
  const pieces = privmsgTexts(long, "#lemon");
  assert.equal(pieces.join(""), long);
  assert.ok(pieces.every((p) => utf8Bytes(p) <= max));
});

Deno.test("sanitizeText strips escapes, IRC formatting, controls and bidi overrides", () => {
  assert.equal(sanitizeText("\x1b[1;31mbold red\x1b[0m"), "bold red");
  assert.equal(sanitizeText("\x1b]0;evil title\x07after"), "after");
  assert.equal(sanitizeText("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
  assert.equal(sanitizeText("\x0304,12c\x03 \x02b\x02 \x1fu\x1f \x16r\x0f \x04ff0000hex"), "c b u r hex");
  assert.equal(sanitizeText("a\u202Egnp.exe\u202C\u2066b"), "agnp.exeb");
  assert.equal(sanitizeText("tab\there\nnew\u0085line\u009b2J"), "tab here newline2J");
  assert.equal(sanitizeText("emoji 👩‍💻 ok, 你好"), "emoji 👩‍💻 ok, 你好");
  fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
    const clean = sanitizeText(s);
    // deno-lint-ignore no-control-regex
    assert.ok(!/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(clean), JSON.stringify(clean));
  }));
});

Deno.test("Ring: keeps the newest, counts what a reader missed", () => {
  const ring = new Ring<{ seq: number }>(3);
  for (let seq = 1; seq <= 5; seq++) ring.push({ seq });
  assert.equal(ring.firstSeq, 3);
  assert.deepEqual(ring.after(0, 10), { items: [{ seq: 3 }, { seq: 4 }, { seq: 5 }], dropped: 2, remaining: 0 });
  assert.deepEqual(ring.after(3, 1), { items: [{ seq: 4 }], dropped: 0, remaining: 1 });
  assert.deepEqual(ring.after(5, 10), { items: [], dropped: 0, remaining: 0 });
  assert.throws(() => ring.push({ seq: 7 }), "ids stay consecutive");
  const resumed = new Ring<{ seq: number }>(2, 41);
  resumed.push({ seq: 42 });
  assert.deepEqual(resumed.after(40, 5).items, [{ seq: 42 }]);
  assert.equal(resumed.after(40, 5).dropped, 1);
});

Deno.test("LineThrottle: a burst, then one line per interval", () => {
  let now = 0;
  const throttle = new LineThrottle({ burst: 3, intervalMs: 1000 }, () => now);
  for (let i = 0; i < 3; i++) {
    assert.equal(throttle.delayMs(), 0);
    throttle.take();
  }
  assert.equal(throttle.delayMs(), 1000);
  now += 400;
  assert.equal(throttle.delayMs(), 600);
  now += 600;
  assert.equal(throttle.delayMs(), 0);
  throttle.take();
  now += 10_000;
  for (let i = 0; i < 3; i++) throttle.take();
  assert.equal(throttle.delayMs(), 1000, "the bucket never holds more than the burst");
});

Deno.test("indicatorFor: yellow while connecting, green once joined, red otherwise", () => {
  assert.deepEqual(
    (["not_initialized", "connecting", "connected", "joined", "error"] as const).map(indicatorFor),
    ["red", "yellow", "red", "green", "red"],
  );
});

const noCa = () => Promise.reject(new Error("no file"));

async function configError(values: Record<string, string>): Promise<PtermError> {
  try {
    await configFromValues(values, noCa);
  } catch (error) {
    if (error instanceof PtermError) return error;
    throw error;
  }
  throw new Error("no error");
}

Deno.test("config: required keys, nick limit, values, defaults", async () => {
  const base = { IRC_SERVER: "irc.example.com", IRC_PORT: "6697", IRC_CHANNEL: "#lemon", IRC_NICK: "lemonbot" };
  const config = await configFromValues({ ...base, IRC_SERVER_PASSWORD: "", OTHER_TOOL_KEY: "x" }, noCa);
  assert.equal(config.tls, false);
  assert.equal(config.secrets.serverPassword, undefined, "an empty value is unset");
  assert.equal(config.autoForward, false, "auto-forward is off by default");
  assert.equal(config.username, "lemonbot");
  for (const key of ["IRC_SERVER", "IRC_PORT", "IRC_CHANNEL", "IRC_NICK"]) {
    const values: Record<string, string> = { ...base };
    delete values[key];
    const error = await configError(values);
    assert.equal(error.code, "MissingConfig");
    assert.match(error.message, new RegExp(`^${key} is not set`));
  }
  const long = await configError({ ...base, IRC_NICK: "lemonbot10" });
  assert.equal(long.code, "NickTooLong");
  assert.ok(!long.message.includes("lemonbot10"));
  assert.equal((await configFromValues({ ...base, IRC_NICK: "ninechars" }, noCa)).nick, "ninechars");
  for (
    const [key, value] of [["IRC_PORT", "0"], ["IRC_TLS", "yes"], ["IRC_CHANNEL", "lemon"], ["IRC_NICKSERV_PASS", "x"]]
  ) {
    const error = await configError({ ...base, [key]: value });
    assert.equal(error.code, "InvalidConfig", key);
    assert.ok(error.message.startsWith(key), error.message);
  }
  const tls = await configFromValues({ ...base, IRC_TLS: "1", IRC_TLS_CA_FILE: "ca.pem" }, (path) => {
    assert.equal(path, "ca.pem");
    return Promise.resolve("-----BEGIN CERTIFICATE-----\n...");
  });
  assert.equal(tls.caPem?.startsWith("-----BEGIN CERTIFICATE-----"), true);
  const sasl = await configFromValues({ ...base, IRC_NICKSERV_PASSWORD: "pw" }, noCa);
  assert.deepEqual([sasl.saslUsername, sasl.secrets.saslPassword], ["lemonbot", "pw"]);
});

Deno.test("config: a .env written like the irc skill's template parses (an unquoted #channel is a value, not a comment)", () => {
  const template = [
    "# IRC 基本配置",
    "IRC_SERVER=irc.example.com",
    "IRC_CHANNEL=#lemon",
    "IRC_SERVER_PASSWORD=ab#cd",
    "IRC_CHANNEL_KEY='k#y'",
    "IRC_NICK=lemonbot # inline comment",
    "IRC_AUTO_FORWARD_TO_AGENT=0",
  ].join("\n");
  assert.deepEqual(parse(quoteHashValues(template)), {
    IRC_SERVER: "irc.example.com",
    IRC_CHANNEL: "#lemon",
    IRC_SERVER_PASSWORD: "ab#cd",
    IRC_CHANNEL_KEY: "k#y",
    IRC_NICK: "lemonbot",
    IRC_AUTO_FORWARD_TO_AGENT: "0",
  });
});

function message(id: number, text: string, nick = "alice"): StoredMessage {
  return { id: String(id), ts: "2026-01-01T00:00:00.000Z", nick, text, kind: "privmsg" };
}

Deno.test("boundBatch: per-message cut, then head + marker + tail within the total", () => {
  const short = [message(1, "hi"), message(2, "there")];
  assert.deepEqual(boundBatch(short, BOUNDS.summary), {
    messages: short,
    truncated: false,
    omitted_count: 0,
    omitted_after_id: null,
  });
  const many = Array.from({ length: 100 }, (_, i) => message(i + 1, `${i} ${"w".repeat(500)}`));
  const batch = boundBatch(many, BOUNDS.summary);
  assert.equal(batch.truncated, true);
  assert.equal(batch.messages[0].id, "1");
  assert.equal(batch.messages.at(-1)?.id, "100");
  assert.equal(batch.messages.length + batch.omitted_count, 100);
  const head = batch.messages.findIndex((m) => m.id === batch.omitted_after_id);
  assert.equal(Number(batch.messages[head + 1].id) - Number(batch.omitted_after_id) - 1, batch.omitted_count);
  for (const m of batch.messages) {
    assert.ok(utf8Bytes(m.text) <= BOUNDS.summary.messageBytes);
    assert.ok(m.text.includes(TRUNCATION_MARKER));
    assert.equal(m.truncated, true);
  }
  const total = batch.messages.reduce((n, m) => n + utf8Bytes(m.text) + utf8Bytes(m.nick) + 64, 0);
  assert.ok(total <= BOUNDS.summary.totalBytes);
});

Deno.test("logFileName: folded, safe, distinct", () => {
  assert.equal(logFileName("#Lemon"), "#lemon.jsonl");
  assert.equal(logFileName("#a/b"), "#a%2Fb.jsonl");
  assert.equal(logFileName("#你"), "#%E4%BD%A0.jsonl");
  assert.notEqual(logFileName("#a.b"), logFileName("#a%2Eb"));
});

Deno.test("MessageStore: JSONL per conversation, reload after restart, cursors only move forward", async () => {
  await using dir = await makeRoot();
  const errors: Error[] = [];
  const store = await MessageStore.open(dir.path, 3, (e) => errors.push(e));
  const stored = store.append(
    "#Lemon",
    [1, 2, 3, 4].map((i) => ({ ts: "t", nick: "alice", text: `m${i}`, kind: "privmsg" })),
  );
  assert.deepEqual(stored.map((m) => m.id), ["1", "2", "3", "4"]);
  store.append("bob", [{ ts: "t", nick: "bob", text: "dm", kind: "privmsg" }]);
  assert.deepEqual((await store.read("#lemon", 10)).messages.map((m) => m.text), ["m2", "m3", "m4"]);
  assert.equal((await store.read("#lemon", 10)).dropped, 1);
  assert.equal(await store.commit("#lemon", "3"), "3");
  assert.equal(await store.commit("#lemon", "2"), "3", "never back");
  await store.close();

  const log = await Deno.readTextFile(join(dir.path, "messages", "#lemon.jsonl"));
  assert.deepEqual(log.trim().split("\n").map((l) => JSON.parse(l).text), ["m1", "m2", "m3", "m4"]);
  // A crash mid-write leaves a torn last line; the reopened store neither chokes on it nor glues onto it.
  await Deno.writeTextFile(join(dir.path, "messages", "#lemon.jsonl"), '{"id":"5","te', { append: true });

  const reopened = await MessageStore.open(dir.path, 3, (e) => errors.push(e));
  assert.equal(reopened.cursor("#LEMON"), "3");
  assert.deepEqual((await reopened.read("#lemon", 10)).messages.map((m) => m.text), ["m4"]);
  assert.deepEqual(reopened.append("#lemon", [{ ts: "t", nick: "a", text: "m5", kind: "privmsg" }])[0].id, "5");
  assert.deepEqual((await reopened.read("bob", 10)).messages.map((m) => m.text), ["dm"]);
  await reopened.close();
  const lines = (await Deno.readTextFile(join(dir.path, "messages", "#lemon.jsonl"))).split("\n").filter(Boolean);
  assert.equal(JSON.parse(lines.at(-1)!).text, "m5");
});

Deno.test("Forwarder: batches per conversation, bounded, marked third-party, never blocks", async () => {
  const written: string[] = [];
  const forwarder = new Forwarder("s1", (line) => {
    written.push(line);
    return Promise.resolve();
  });
  forwarder.add("#lemon", Array.from({ length: 1000 }, (_, i) => message(i + 1, `${i} ${"q".repeat(100)}`)));
  forwarder.add("bob", [message(1, "hi", "bob")]);
  await forwarder.close();
  const lines = written.map((l) => JSON.parse(l));
  assert.equal(lines.length, 2);
  const lemon = lines.find((l) => l.conversation === "#lemon");
  assert.equal(lemon.third_party, true);
  assert.equal(lemon.session, "s1");
  assert.equal(lemon.messages.length + lemon.omitted_count, 1000);
  assert.equal(lemon.messages[0].id, "1");
  assert.equal(lemon.messages.at(-1).id, "1000");
  assert.ok(utf8Bytes(JSON.stringify(lemon.messages)) < BOUNDS.summary.totalBytes + 4096);

  // A host that does not read stdout: past 64 unwritten lines, batches are counted, not queued.
  let release!: () => void;
  const stuck = new Promise<void>((resolve) => (release = resolve));
  const slow: string[] = [];
  const blocked = new Forwarder("s1", (line) => {
    slow.push(line);
    return slow.length === 1 ? stuck : Promise.resolve();
  });
  for (let i = 0; i < 100; i++) blocked.add(`#c${i}`, [message(1, "x")]);
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(slow.length, 1, "the first write is stuck, the rest wait");
  release();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(slow.length, 64);
  blocked.add("#after", [message(1, "y")]);
  await blocked.close();
  assert.equal(JSON.parse(slow.at(-1)!).dropped_lines, 36);
});

Deno.test("the .env layout documented in skills/irc-cli/SKILL.md is valid", async () => {
  const skill = await Deno.readTextFile(new URL("../../../skills/irc-cli/SKILL.md", import.meta.url));
  const block = /```dotenv\n([\s\S]*?)```/.exec(skill)![1];
  const values = parse(quoteHashValues(block));
  assert.equal(values.IRC_CHANNEL, "#lemon");
  assert.equal(values.IRC_SERVER_PASSWORD, "");
  const config = await configFromValues(values, noCa);
  assert.deepEqual([config.server, config.port, config.tls, config.nick, config.channel], [
    "irc.example.com",
    6697,
    true,
    "lemonbot",
    "#lemon",
  ]);
  assert.equal(config.autoForward, false);
  assert.deepEqual(config.secrets, {
    serverPassword: undefined,
    channelKey: undefined,
    nickservPassword: undefined,
    saslPassword: undefined,
  });
});

Deno.test("MessageStore: at most MAX_RESIDENT_CONVERSATIONS rings in memory; a pull reloads one from its log", async () => {
  await using dir = await makeRoot();
  const store = await MessageStore.open(dir.path, 10, (e) => {
    throw e;
  });
  for (let i = 0; i <= MAX_RESIDENT_CONVERSATIONS; i++) {
    store.append(`nick${i}`, [{ ts: "t", nick: `nick${i}`, text: `hello ${i}`, kind: "privmsg" }]);
  }
  await store.flush();
  // nick0 left memory when the 65th conversation arrived; its log brings it back.
  assert.deepEqual((await store.read("nick0", 10)).messages.map((m) => [m.id, m.text]), [["1", "hello 0"]]);
  assert.deepEqual(store.append("nick0", [{ ts: "t", nick: "nick0", text: "again", kind: "privmsg" }])[0].id, "2");
  await store.close();
  const log = await Deno.readTextFile(join(dir.path, "messages", "nick0.jsonl"));
  assert.deepEqual(log.trim().split("\n").map((l) => JSON.parse(l).id), ["1", "2"]);
});

Deno.test("foldName follows the server's CASEMAPPING", async () => {
  const { foldName } = await import("../../../commands/irc/protocol.ts");
  assert.equal(foldName("#Pt[X]\\~", "ascii"), "#pt[x]\\~");
  assert.equal(foldName("#Pt[X]\\~", "rfc1459"), "#pt{x}|^");
  assert.equal(foldName("#Pt[X]\\~", "strict-rfc1459"), "#pt{x}|~");
  assert.equal(foldName("#pt{x}|^", "rfc1459"), "#pt{x}|^", "the lower case stays");
});

Deno.test("globMatches: * and ? only, everything else literal, under the fold", async () => {
  const { globMatches } = await import("../../../commands/irc/protocol.ts");
  const fold = (s: string) => s.toLowerCase();
  assert.ok(globMatches("NickServ!*@services.*", "nickserv!NickServ@services.example.net", fold));
  assert.ok(!globMatches("NickServ!*@services.*", "NickServ!u@evil.example", fold));
  assert.ok(!globMatches("NickServ!*@a.b", "NickServ!u@aXb", fold), "a dot is a dot");
  assert.ok(globMatches("N?ckServ!*@*", "NickServ!u@h", fold));
});
