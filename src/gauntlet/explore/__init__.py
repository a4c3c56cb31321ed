"""Explore, then freeze: attacker personas hold live conversations; every break becomes a case.

A merge gate must not depend on a simulated user, so exploring and gating are apart:
`gauntlet explore` lets an attacker model play a persona (`gauntlet.cases.persona`) against a
target, checks each answer at once against the persona's goal (`goal`: the gate's own checks,
then the calibrated judge if one is given), and freezes the first turn that breaks it as a
conversation case (`freeze`) that `gauntlet run` replays deterministically like any other.

The parts, each a module:

- `model`: the records an explore run produces (`Outcome`, `ExploreTurn`, `Conversation`,
  `Finding`, `TokensByRole`) and what can go wrong with an attacker (`AttackerFault`).
- `goal`: the case a conversation would freeze as, and the check of one answer against it,
  so a break found live is exactly the failure a replay sees.
- `attacker`: the `Attacker` seam (a persona's next message, or why there is none) and the
  chat-model attacker that writes its prompt and reads its strict JSON reply.
- `toy`: the scripted toy attacker (each persona's tactics verbatim, or a named defect),
  asked through the same prompt and reply as a chat model.
- `engine`: the conversation loop, budgets, progress and interruption.
- `freeze`: frozen suites written atomically, and known findings matched rather than
  written twice.
- `report`: the explore report (its JSON model and verdict; `gauntlet.render.explore` draws
  it in Markdown and on the console).

An attacker that fails (refuses, answers prose, repeats itself, says nothing) makes its
conversation UNSCOREABLE: never a target that held. A target that errors makes it ERRORED:
never a break and never a hold.
"""
