"""The four actions of a scheduling cycle, in the order they run (as KAI's
`pkg/scheduler/actions`): allocate, consolidate, reclaim, preempt."""
