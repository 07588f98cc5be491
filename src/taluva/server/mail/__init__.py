"""E-mail: the queue of mails in the database, the SMTP sender that empties it, the signed
links mails carry, and the letters themselves.

Every mail is first a row of ``mail_queue`` (``queue.MailQueue``), written by whoever wants it
sent; each server process with SMTP configured runs one ``sender.MailSender``, which claims a
due row, hands it to the mail server and marks it sent, or tries it again later. A slow or
failing mail server so never holds up a request or a move, and a mail survives a restart.
"""
