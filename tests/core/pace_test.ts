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

Deno.test("nextTask: a turn costs no timer — 300 turns take well under 300 timer waits", async () => {
  // A setTimeout(0) waits 1-4 ms in Deno; 300 of them take ≥ 300 ms. A message task does not wait.
  const started = performance.now();
  for (let i = 0; i < 300; i++) await nextTask();
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 150, `300 turns took ${elapsed.toFixed(1)} ms`);
});

Deno.test("Pacer: due only once its interval has passed since the last turn", async () => {
  const pacer = new Pacer(30);
  // Asked per item of a loop: within the interval, never due.
  const dueCount = (items: number) => Array.from({ length: items }, () => pacer.due()).filter(Boolean).length;
  assert.equal(dueCount(100), 0);
  const until = performance.now() + 35;
  while (performance.now() < until) { /* the caller's synchronous work */ }
  assert.ok(dueCount(100) > 0, "due once the interval has passed");
  await pacer.turn();
  assert.equal(dueCount(100), 0);
});
