// Forces refreshes in a loop, waiting past the freshness window each time.
const replies = [];
for (let i = 0; i < 12; i++) {
  try { replies.push(await window.webkit.messageHandlers.session.postMessage({action: "refresh"})); }
  catch (e) { replies.push(String(e)); }
  replies.push(document.cookie);
  await sleep(70);
}
walk(replies, 3);
