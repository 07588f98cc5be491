"""The words of the mails an account gets, each as plain text and as HTML, with the link it
is about and the game's own address."""

from __future__ import annotations

from html import escape

from taluva.server.mail.links import LINK_LIFETIMES
from taluva.server.mail.queue import PICTURE_ID, Letter


def link_hours(purpose: str) -> str:
    """How long a link for ``purpose`` works, in words ("1 hour", "48 hours")."""
    hours = int(LINK_LIFETIMES[purpose].total_seconds() // 3600)
    return "1 hour" if hours == 1 else f"{hours} hours"


def _letter(
    subject: str,
    greeting: str,
    lines: list[str],
    action: str,
    link: str,
    site: str,
    off: tuple[str, str] | None = None,
    picture: bytes | None = None,
) -> Letter:
    """A mail with a greeting, some lines, one button-like link and the game's address;
    ``off``, for a mail its player may turn off: the page that turns it off, and the
    one-click address mail clients post to (RFC 8058); ``picture``, a PNG the HTML shows
    above the link (the mail carries it inline)."""
    footer = f"-- \nTaluva, {site}"
    html_footer = f'Taluva, <a href="{escape(site)}">{escape(site)}</a>'
    if off is not None:
        footer += f"\nTurn these mails off: {off[0]}"
        html_footer += f' &middot; <a href="{escape(off[0])}">Turn these mails off</a>'
    text = "\n\n".join([greeting, *lines, f"{action}:\n{link}", footer])
    paragraphs = "".join(f"<p>{escape(line)}</p>" for line in lines)
    if picture is not None:
        paragraphs += f'<p><img src="cid:{PICTURE_ID}" alt="The board now"></p>'
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
        "Confirm your e-mail address for Taluva",
        f"Hello {name},",
        [
            "this address was given for your Taluva account. Once you confirm it, a "
            "forgotten password can be reset through it. Nobody else sees it.",
            f"The link works for {link_hours('confirm')}. If you did not ask for this, ignore "
            "this mail: the address will not be used.",
        ],
        "Confirm this address",
        link,
        site,
    )


def reset_letter(name: str, link: str, site: str) -> Letter:
    """The mail to an account's confirmed address: the link that sets a new password."""
    return _letter(
        "Set a new password for Taluva",
        f"Hello {name},",
        [
            "somebody (we hope you) asked to set a new password for your Taluva account "
            f"{name}. Setting it signs out every browser signed in to the account.",
            f"The link works once, for {link_hours('reset')}. If you did not ask for this, ignore "
            "this mail: your password stays as it is.",
        ],
        "Set a new password",
        link,
        site,
    )


def challenge_letter(
    name: str, sender: str, game: str, link: str, site: str, off: tuple[str, str]
) -> Letter:
    """The mail to a player another one challenged (``game``: the game asked for, in words)."""
    return _letter(
        f"{sender} challenges you on Taluva",
        f"Hello {name},",
        [f"{sender} challenges you to a game: {game}. Accept or decline it from the badge "
         "at the top of any page of the site."],
        "Answer the challenge",
        link,
        site,
        off,
    )  # fmt: skip


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
        f"Your move in {game}",
        f"Hello {name},",
        [f"it is your move in the game {game}. The others are waiting for you."],
        "Play your move",
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
        f"{sender} offers a rematch of {game}",
        f"Hello {name},",
        [f"{sender} offers a rematch of the game {game}: the same seats, the same options, "
         "a new deck. Your seat in it is kept for you; take it from the finished game's page."],
        "Take your seat",
        link,
        site,
        off,
    )  # fmt: skip


def end_letter(
    name: str, game: str, headline: str, lines: list[str], link: str, site: str,
    off: tuple[str, str],
) -> Letter:  # fmt: skip
    """The mail to a player of a game that ended while they had no page of it open: the
    result in words (who won and why, then one line a place)."""
    return _letter(
        f"{game} is over: {headline}"[:200],
        f"Hello {name},",
        [f"the game {game} is over. {headline}.", *lines],
        "See the game",
        link,
        site,
        off,
    )


def clock_letter(
    name: str, game: str, left: str, link: str, site: str, off: tuple[str, str]
) -> Letter:
    """The mail to the player to move in a turn-based game whose time for the turn is about
    to run out (``left``: the time left, in words)."""
    return _letter(
        f"Your time in {game} runs out in {left}",
        f"Hello {name},",
        [f"it is still your move in the game {game}, and your time for this turn runs out in "
         f"{left}. When it does, you are out of the game."],
        "Play your move",
        link,
        site,
        off,
    )  # fmt: skip
