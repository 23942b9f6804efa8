"""The simulated driver's core: the entry groups by concept, the services they share and the rule engine.

Private: users reach it through :mod:`simcuda` and the faces. A regular package (not a namespace one) so that
tools which read the source, such as the API reference's griffe, find the classes :mod:`simcuda` re-exports.
"""
