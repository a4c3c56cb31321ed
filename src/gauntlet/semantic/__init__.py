"""Meaning, measured: an embedder, the similarity of two answers, and its calibration.

An embedder turns text into vectors (`gauntlet.semantic.embedder`): in process (`builtin`,
the `gauntlet[semantic]` extra), over `/v1/embeddings` (a target file of kind
`openai-embeddings`), or the toy's. Similarity is their cosine, and it passes an answer only
with an accepted calibration record for the embedder's fingerprint and the answer's language
(`gauntlet.semantic.calibration`), and only when the guards hold (`gauntlet.semantic.guards`):
every number of the gold answer is in the answer, and neither says "not" where the other does
not. Without an accepted record a similarity check is unjudged, never passed.
"""
