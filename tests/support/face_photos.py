"""Public-domain photos with faces for the privacy tests, and an independent face finder to check the blur.

The photos are scikit-image's sample images (public domain: the astronaut Eileen Collins, NASA; the cameraman,
MIT), written to files so that they can be added to a project. `lbp_faces` is scikit-image's LBP cascade
(the frontal-face cascade trained for OpenCV, run by scikit-image's own code): another detector and another method
than the gate's CenterFace network, so a face it still finds in a blurred frame is a face the gate missed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: The face of each sample marked by hand (x0, y0, x1, y1 in pixels), used to say a face was found where it is.
MARKED_FACES: dict[str, list[tuple[int, int, int, int]]] = {
    "astronaut": [(180, 55, 275, 180)],
    "camera": [(200, 110, 262, 200)],
}


def sample_rgb(name: str) -> np.ndarray:
    """A scikit-image sample as RGB uint8 (grey samples repeated on three channels)."""
    from skimage import data

    image = getattr(data, name)()
    return np.dstack([image] * 3) if image.ndim == 2 else image


def write_sample(folder: Path, name: str) -> Path:
    """The sample written as ``<name>.png`` in `folder`."""
    from fieldstudio.media.images import write_image

    path = folder / f"{name}.png"
    write_image(path, sample_rgb(name))
    return path


def lbp_faces(rgb: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Faces found by scikit-image's LBP frontal-face cascade, as (x0, y0, x1, y1)."""
    from skimage import data, feature

    cascade = feature.Cascade(data.lbp_frontal_face_cascade_filename())
    side = min(rgb.shape[:2])
    found = cascade.detect_multi_scale(img=rgb, scale_factor=1.1, step_ratio=1, min_size=(24, 24),
                                       max_size=(side, side))
    return [(d["c"], d["r"], d["c"] + d["width"], d["r"] + d["height"]) for d in found]


def overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether box `a` covers the centre of box `b`, or `b` the centre of `a` (the same face)."""
    def covers(outer, inner) -> bool:
        cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
        return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]
    return covers(a, b) or covers(b, a)


#: Faces marked by hand in frames of the shared data's videos (`tests.support.shared_data.SHARED_DATA`, CC BY 4.0,
#: Intel sample videos: see its README): (video path under ``media/``, frame index) -> faces (x0, y0, x1, y1).
#: Only faces a person can see as faces (a profile counts; the back of a head does not).
SHARED_DATA_FACES: dict[tuple[str, int], list[tuple[int, int, int, int]]] = {
    ("videos/store_aisle_shoppers_from_gif.mp4", 0): [(275, 74, 294, 100)],      # the man in the hat, in profile
    ("videos/store_aisle_shoppers_from_gif.mp4", 30): [(361, 83, 384, 108)],     # the woman in teal, in profile
}


def shared_data_frame(video: Path, index: int) -> np.ndarray:
    """Frame `index` (decode order of the only video stream) of a shared-data video, RGB."""
    import av

    with av.open(str(video)) as container:
        for n, frame in enumerate(container.decode(container.streams.video[0])):
            if n == index:
                return frame.to_ndarray(format="rgb24")
    raise IndexError(f"{video} has no frame {index}")
