"""The pipeline: what each command that reads histories runs, from its request to its outputs.

- `pipeline.jobs`: `analyze_job`, `explore_job` and `replay_job`, each given the command's
  frozen request (inputs.requests): an `InputSession` selects and checks what the request
  names, the stages run (journal decoding, replay, eligibility, simulation, models, gate,
  assembling), and the complete result comes back in memory, to be written as one whole.
- `pipeline.units`: the snapshot split into independent units, replayed in this process or in
  a pool of spawned workers, and combined in order (R-PERF-1, R-PERF-3).
- `pipeline.demo`: the demo's two synthetic corpora, qualified and analyzed.
- `pipeline.saved`: a saved report read back strictly (`show`).

Nothing is imported here: a pool worker imports `pipeline.units` alone, and the CLI imports
each module only when its command runs, so start-up stays small (docs/performance.md).
"""
