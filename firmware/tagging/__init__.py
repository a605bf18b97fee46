# Tag mode: writing and checking the deck's stickers (tagmode over tag_image and tag_deck).
