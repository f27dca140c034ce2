"""magika (Google's content-type detector; it feeds ORT a plain Python list): the type of
generated files of ten kinds."""

import json

import _common
import numpy as np
from magika import Magika

out = _common.out_path()
rng = np.random.default_rng(3)
samples = {
    "python": "\n".join(f"def f{i}(x):\n    return x * {i} + len(str(x))\n" for i in range(30)),
    "json": json.dumps([{"id": i, "name": f"item{i}", "tags": ["a", "b"]} for i in range(40)]),
    "html": "<!DOCTYPE html><html><head><title>t</title></head><body>"
    + "".join(f"<p class='x'>para {i}</p>" for i in range(40))
    + "</body></html>",
    "c": "#include <stdio.h>\n\nint main(void) {\n"
    + "".join(f'  printf("%d\\n", {i});\n' for i in range(40))
    + "  return 0;\n}\n",
    "csv": "id,name,value\n" + "".join(f"{i},name{i},{i * 1.5}\n" for i in range(60)),
    "markdown": "# Title\n\n" + "".join(f"- item **{i}** with `code`\n" for i in range(40)),
    "shell": "#!/bin/bash\nset -e\n"
    + "".join(f"echo step {i} && ls /tmp > /dev/null\n" for i in range(30)),
    "yaml": "".join(f"key{i}:\n  value: {i}\n  list: [a, b]\n" for i in range(30)),
    "random": rng.integers(0, 256, 4096, dtype=np.uint8).tobytes(),
    "text": " ".join(["the quick brown fox jumps over the lazy dog"] * 40),
}
m = Magika()
results = {}
for kind, content in samples.items():
    data = content.encode() if isinstance(content, str) else content
    r = m.identify_bytes(data)
    results[kind] = {"label": str(r.output.label), "score": float(r.score)}
_common.write(out, {"files": results})
