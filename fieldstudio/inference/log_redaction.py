"""Secrets never reach a log file: the HTTP layer's and the SDK's log records are masked where they are made.

httpx logs each request's URL in full, query string included, and a key given in a base URL's query would be
written in clear by any handler; a filter on those loggers masks every record with
`fieldstudio.core.masking.mask_in_text` before a handler sees it. Installed once, when this module is imported
(`fieldstudio.inference.client` imports it).
"""

from __future__ import annotations

import logging

from fieldstudio.core.masking import mask_in_text


class _MaskSecretsFilter(logging.Filter):
    """Masks secrets (`fieldstudio.core.masking`) in records of the HTTP layer and the SDK, whatever handler
    writes them: httpx logs each request's URL in full, query string included."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_in_text(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


def _install_log_redaction() -> None:
    for name in ("httpx2", "httpx", "httpcore2", "httpcore", "openai"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _MaskSecretsFilter) for f in logger.filters):
            logger.addFilter(_MaskSecretsFilter())


_install_log_redaction()
