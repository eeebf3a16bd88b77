/**
 * The panel's view model over a whole recorded demo session (test/fixtures/sessions/demo-session.jsonl,
 * the demo agent's events as the host logged them) against a golden view model. Folded all at once
 * and event by event, it must come out the same: the panel gets patches of any size.
 * UPDATE_GOLDEN=1 rewrites test/fixtures/sessions/golden/demo-session.view-model.json.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseThoughtEvents } from "../../src/core/exporters";
import { EMPTY_STATE, reduce } from "../../src/shared/viewModel";
import { goldenText, matchGolden } from "../support/golden";

const dir = path.join(__dirname, "..", "fixtures", "sessions");
const events = parseThoughtEvents(fs.readFileSync(path.join(dir, "demo-session.jsonl"), "utf8"));

describe("view model of the recorded demo session (golden)", () => {
  it("folds the whole session into the golden view model", () => {
    const state = reduce(EMPTY_STATE, events);
    assert.equal(state.version, events.length, "every event folded in");
    matchGolden(path.join(dir, "golden", "demo-session.view-model.json"), state);
  });

  it("event by event, in batches of any size, it ends in the same view model", () => {
    const whole = goldenText(reduce(EMPTY_STATE, events));
    let one = EMPTY_STATE;
    for (const e of events) one = reduce(one, [e]);
    assert.equal(goldenText(one), whole, "one event at a time");
    let batched = EMPTY_STATE;
    for (let i = 0, size = 1; i < events.length; i += size, size = (size % 7) + 1) batched = reduce(batched, events.slice(i, i + size));
    assert.equal(goldenText(batched), whole, "batches of 1 to 7 events");
  });
});
