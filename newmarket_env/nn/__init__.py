"""Building blocks of the torch networks on the flat observation, shared by training (``train``) and the
integrations (``integrations.rllib``): the sparse input layer (:mod:`.sparse_input`) and its compiled
loops (``_sparse.pyx``). Needs torch (the ``train`` extra) for the layer; the loops need only numpy."""
