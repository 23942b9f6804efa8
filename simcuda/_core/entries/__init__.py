"""The driver entry points, one module per concept; :class:`simcuda._core.driver.Driver` combines them.

Each module holds one class of entries built on :class:`simcuda._core.state.DriverState`, reaching the services
it holds (``handles``, ``threads``, ``captures``, ``memory``, ``scheduler``) through their public methods. Capture
rules are never decided here: every one lives in :mod:`simcuda._core.capture`.
"""
