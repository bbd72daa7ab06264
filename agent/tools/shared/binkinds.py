"""File kinds read_file refuses by extension, with advice on how to look inside each."""

from __future__ import annotations

KINDS = {
    "image": "png jpg jpeg gif bmp ico webp tif tiff psd heic heif avif icns raw cr2 nef",
    "archive": "zip tar gz tgz bz2 xz 7z rar zst lz4 lzma jar war ear whl egg apk deb rpm dmg iso",
    "executable": "exe dll so dylib o a lib obj bin class pyc pyo pyd wasm elf out node",
    "media": "mp3 mp4 wav ogg flac aac m4a avi mov mkv webm wmv flv",
    "font": "ttf otf woff woff2 eot",
    "office": "doc xls ppt pptx odt ods odp",  # .docx, .xlsx/.xlsm: agent.tools.files.documents
    "database": "sqlite sqlite3 db mdb parquet feather pkl pickle npy npz h5 hdf5",
}
ADVICE = {
    "image": "images cannot be read as text; ask the user what it shows, or inspect its metadata "
    "with bash (`file`, `identify`)",
    "archive": "list an archive with bash (`unzip -l FILE`, `tar -tf FILE`)",
    "executable": "compiled files are not text; use bash with `file`, `strings` or `xxd | head`",
    "media": "audio/video is not text; use bash with `ffprobe` for its metadata",
    "font": "fonts are not text; use bash with `fc-scan` or `file` for details",
    "office": "read_file reads .docx and .xlsx; convert this one with bash "
    "(`libreoffice --headless --convert-to docx FILE`, or `xlsx` for a spreadsheet)",
    "database": "data files are binary; inspect them with bash (e.g. `sqlite3 FILE .schema`) or "
    "a short Python script",
}
BINARY_EXTENSIONS = {ext: kind for kind, exts in KINDS.items() for ext in exts.split()}
