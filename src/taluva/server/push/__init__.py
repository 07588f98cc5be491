"""Web push: notifications of the same events as the mails, to the browsers an account
subscribed, encrypted to each browser's keys (aes128gcm) and signed with the server's VAPID
key, through the push service of the browser's vendor.

``keys`` makes and reads the VAPID key (one for all server processes, kept in the database),
``subscriptions`` keeps the browsers and their switches, and ``pusher.Pusher`` sends, each
message in a thread of its own, so that a slow push service never holds up a request or a
move.
"""
