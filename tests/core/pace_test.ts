import assert from "node:assert/strict";
import { nextTask, Pacer } from "../../core/pace.ts";

Deno.test("nextTask: a message already queued for this thread is handled before the turn ends", async () => {
  const channel = new MessageChannel();
  let received = false;
  channel.port1.onmessage = () => received = true;
  channel.port2.postMessage("cancel");
  // A synchronous loop that takes its turn: the message arrives during it, not after the loop.
  for (let i = 0; i < 10 && !received; i++) await nextTask();
  channel.port1.close();
  assert.ok(received, "the queued message was taken in during the turns");
});

Deno.test("nextTask: a turn sets no timer (a setTimeout(0) waits 1-4 ms in Deno; a message task does not wait)", async () => {
  const original = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers++;
    return original(...args);
  }) as typeof setTimeout;
  try {
    for (let i = 0; i < 300; i++) await nextTask();
  } finally {
    globalThis.setTimeout = original;
  }
  assert.equal(timers, 0);
});

Deno.test("Pacer: due only once its interval has passed since the last turn", async () => {
  // Intervals long enough that a stall of the machine between two lines cannot make a turn due.
  const pacer = new Pacer(400);
  // Asked per item of a loop: within the interval, never due.
  const dueCount = (items: number) => Array.from({ length: items }, () => pacer.due()).filter(Boolean).length;
  assert.equal(dueCount(100), 0);
  const until = performance.now() + 410;
  while (performance.now() < until) { /* the caller's synchronous work */ }
  assert.ok(dueCount(100) > 0, "due once the interval has passed");
  await pacer.turn();
  assert.equal(dueCount(100), 0);
});
