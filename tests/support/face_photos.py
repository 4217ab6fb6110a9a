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


#: The recall set's further faces (issue 34: side views and faces seen from three quarters behind included), marked
#: by hand on crops enlarged 5-8 times. A face counts when skin of the face (an eye, the nose, a cheek) is visible:
#: frontal, profile, or "lost profile" (the cheek of a head turned away); a head whose face is hidden counts in
#: `HEADS_FROM_BEHIND` instead. Keys: (file under the shared data, frame index; -1 for a photo) -> (x0, y0, x1, y1).
#: ``fieldworkarena/demo_images`` are the FieldWorkArena repository's demo worksite photos (Apache-2.0).
STORE_CLIP = "media/videos/store_aisle_shoppers_from_gif.mp4"
RECALL_SET_FACES: dict[tuple[str, int], list[tuple[int, int, int, int]]] = {
    (STORE_CLIP, 10): [(274, 76, 294, 101), (370, 84, 386, 111)],  # the man in profile; the woman's lost profile
    (STORE_CLIP, 20): [(273, 76, 293, 100), (363, 82, 382, 106)],  # both in profile
    (STORE_CLIP, 40): [(362, 82, 382, 106)],                        # the woman in teal, profile
    (STORE_CLIP, 50): [(361, 80, 382, 104), (323, 122, 347, 152)],  # teal in profile; the blonde woman's cheek
    (STORE_CLIP, 60): [(362, 82, 384, 110)],                        # teal, lost profile
    ("fieldworkarena/demo_images/worksite_a.jpg", -1): [(266, 136, 284, 154)],   # helmeted worker, profile, 18 px
    ("fieldworkarena/demo_images/worksite_d.jpg", -1): [(597, 378, 623, 404)],   # kneeling worker looking down
}
#: Heads seen from behind (the face hidden) in the same files: not faces, reported apart by the benchmark.
HEADS_FROM_BEHIND: dict[tuple[str, int], list[tuple[int, int, int, int]]] = {
    (STORE_CLIP, 30): [(280, 66, 308, 96)],
    (STORE_CLIP, 40): [(293, 63, 320, 90), (345, 128, 392, 172)],
    (STORE_CLIP, 60): [(318, 105, 352, 145)],
    ("fieldworkarena/demo_images/worksite_a.jpg", -1): [(362, 127, 382, 150)],
    ("fieldworkarena/demo_images/worksite_b.jpg", -1): [(613, 54, 632, 75)],
    ("media/images/ppe_electricians_hardhat_vest_wire_room_mta.jpg", -1): [(470, 95, 600, 220)],
}


def shared_data_picture(relative: str, index: int) -> np.ndarray:
    """The picture of the shared data at `relative` as RGB: frame `index` of a video, or the photo when `index`
    is -1. Raises FileNotFoundError when the shared data is not on this machine."""
    from tests.support.shared_data import SHARED_DATA

    path = SHARED_DATA / relative
    if not path.is_file():
        raise FileNotFoundError(path)
    if index < 0:
        from fieldstudio.media.images import read_image

        return read_image(path)
    return shared_data_frame(path, index)


def shared_data_frame(video: Path, index: int) -> np.ndarray:
    """Frame `index` (decode order of the only video stream) of a shared-data video, RGB."""
    import av

    with av.open(str(video)) as container:
        for n, frame in enumerate(container.decode(container.streams.video[0])):
            if n == index:
                return frame.to_ndarray(format="rgb24")
    raise IndexError(f"{video} has no frame {index}")
