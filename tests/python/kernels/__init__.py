"""The kernel tests, one package per family (mirroring src/onnx_light/kernels/), so that
modules of one name in two families (llm/test_attention.py, com_microsoft/test_attention.py)
coexist. Shared helpers live in tests/python/ (_graphs.py, _ms.py, ...)."""
