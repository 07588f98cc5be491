"""The words of the mails an account gets, each as plain text and as HTML, with the link it
is about and the game's own address.

Each letter is written in the language being spoken when it is made (``taluva.lang.use``):
the sender speaks the recipient's (``Notices``, ``http.mail``). Words made by lower layers
(a game's result, a time left) come as Texts and are said in it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from taluva.engine.wording import Text, Tn
from taluva.lang import _, say
from taluva.server.mail.links import LINK_LIFETIMES
from taluva.server.mail.queue import PICTURE_ID, Letter

SUBJECT_CHARS = 200
"""The longest subject written (a game's result in words may be long)."""


def link_hours(purpose: str) -> Text:
    """How long a link for ``purpose`` works, in words ("1 hour", "48 hours")."""
    hours = int(LINK_LIFETIMES[purpose].total_seconds() // 3600)
    return Tn("{n} hour", "{n} hours", hours, n=hours)


def _letter(
    subject: str,
    greeting: str,
    lines: Sequence[Any],
    action: str,
    link: str,
    site: str,
    off: tuple[str, str] | None = None,
    picture: bytes | None = None,
) -> Letter:
    """A mail with a greeting, some lines, one button-like link and the game's address;
    ``off``, for a mail its player may turn off: the page that turns it off, and the
    one-click address mail clients post to (RFC 8058); ``picture``, a PNG the HTML shows
    above the link (the mail carries it inline). ``lines`` may be Texts: they are said."""
    said = [say(line) for line in lines]
    footer = f"-- \nTaluva, {site}"
    html_footer = f'Taluva, <a href="{escape(site)}">{escape(site)}</a>'
    if off is not None:
        footer += "\n" + _("Turn these mails off: {link}", link=off[0])
        html_footer += (
            f' &middot; <a href="{escape(off[0])}">{escape(_("Turn these mails off"))}</a>'
        )
    text = "\n\n".join([greeting, *said, f"{action}:\n{link}", footer])
    paragraphs = "".join(f"<p>{escape(line)}</p>" for line in said)
    if picture is not None:
        alt = escape(_("The board now"), quote=True)
        paragraphs += f'<p><img src="cid:{PICTURE_ID}" alt="{alt}"></p>'
    html = (
        '<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">'
        f"<p>{escape(greeting)}</p>{paragraphs}"
        f'<p><a href="{escape(link)}" style="font-weight: bold">{escape(action)}</a></p>'
        f'<p style="color: #666">{html_footer}</p>'
        "</body></html>"
    )
    return Letter(subject, text + "\n", html, None if off is None else off[1], picture)


def confirm_letter(name: str, link: str, site: str) -> Letter:
    """The mail to a new address of the account ``name``: the link that confirms it."""
    return _letter(
        _("Confirm your e-mail address for Taluva"),
        _("Hello {name},", name=name),
        [
            _(
                "this address was given for your Taluva account. Once you confirm it, a "
                "forgotten password can be reset through it. Nobody else sees it."
            ),
            _(
                "The link works for {hours}. If you did not ask for this, ignore this mail: "
                "the address will not be used.",
                hours=link_hours("confirm"),
            ),
        ],
        _("Confirm this address"),
        link,
        site,
    )


def reset_letter(name: str, link: str, site: str) -> Letter:
    """The mail to an account's confirmed address: the link that sets a new password."""
    return _letter(
        _("Set a new password for Taluva"),
        _("Hello {name},", name=name),
        [
            _(
                "somebody (we hope you) asked to set a new password for your Taluva account "
                "{name}. Setting it signs out every browser signed in to the account.",
                name=name,
            ),
            _(
                "The link works once, for {hours}. If you did not ask for this, ignore this "
                "mail: your password stays as it is.",
                hours=link_hours("reset"),
            ),
        ],
        _("Set a new password"),
        link,
        site,
    )


def challenge_letter(
    name: str, sender: str, game: Any, link: str, site: str, off: tuple[str, str]
) -> Letter:
    """The mail to a player another one challenged (``game``: the game asked for, in words)."""
    return _letter(
        _("{sender} challenges you on Taluva", sender=sender),
        _("Hello {name},", name=name),
        [
            _(
                "{sender} challenges you to a game: {game}. Accept or decline it from the "
                "badge at the top of any page of the site.",
                sender=sender,
                game=game,
            )
        ],
        _("Answer the challenge"),
        link,
        site,
        off,
    )


def move_letter(
    name: str,
    game: str,
    link: str,
    site: str,
    off: tuple[str, str],
    picture: bytes | None = None,
) -> Letter:
    """The mail to the player to move in a turn-based game, who has no page of it open, with
    the board as a picture when the server can draw one."""
    return _letter(
        _("Your move in {game}", game=game),
        _("Hello {name},", name=name),
        [_("it is your move in the game {game}. The others are waiting for you.", game=game)],
        _("Play your move"),
        link,
        site,
        off,
        picture,
    )


def rematch_letter(
    name: str, sender: str, game: str, link: str, site: str, off: tuple[str, str]
) -> Letter:
    """The mail to a player of a finished game whose rematch another player offered: their
    seat in it is kept for them, taken from the finished game's page."""
    return _letter(
        _("{sender} offers a rematch of {game}", sender=sender, game=game),
        _("Hello {name},", name=name),
        [
            _(
                "{sender} offers a rematch of the game {game}: the same seats, the same "
                "options, a new deck. Your seat in it is kept for you; take it from the "
                "finished game's page.",
                sender=sender,
                game=game,
            )
        ],
        _("Take your seat"),
        link,
        site,
        off,
    )


def end_letter(
    name: str,
    game: str,
    headline: Any,
    lines: Sequence[Any],
    link: str,
    site: str,
    off: tuple[str, str],
) -> Letter:
    """The mail to a player of a game that ended while they had no page of it open: the
    result in words (who won and why, then one line a place; Texts, said here)."""
    return _letter(
        _("{game} is over: {headline}", game=game, headline=headline)[:SUBJECT_CHARS],
        _("Hello {name},", name=name),
        [_("the game {game} is over. {headline}.", game=game, headline=headline), *lines],
        _("See the game"),
        link,
        site,
        off,
    )


def clock_letter(
    name: str, game: str, left: Any, link: str, site: str, off: tuple[str, str]
) -> Letter:
    """The mail to the player to move in a turn-based game whose time for the turn is about
    to run out (``left``: the time left, in words: a Text, said here)."""
    return _letter(
        _("Your time in {game} runs out in {left}", game=game, left=left),
        _("Hello {name},", name=name),
        [
            _(
                "it is still your move in the game {game}, and your time for this turn runs "
                "out in {left}. When it does, you are out of the game.",
                game=game,
                left=left,
            )
        ],
        _("Play your move"),
        link,
        site,
        off,
    )
