# The game of Pontoon, pure: cards, hands, the rules, the engine that applies events
# (deal, actions, bank options, settlement, the shoe's layers) and the transcript language.
# No clock, no I/O: events in, state out.
