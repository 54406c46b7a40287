"""Who decides for a seat: the ``Player`` interface and built-in bots (``base``), bot programs over the
protocol (``program``, ``botproc``, processes kept between matches in ``reuse``), players made from
names (``make``), the fault policy (``seats``), bot folders (``manifest``, ``botfiles``), seeds
(``seeds``) and traces of a bot program's lines (``trace``)."""
