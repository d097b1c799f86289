"""Layout-aware text of a wording (PDF, DOCX, HTML, Markdown) as a flat list of blocks.

Every format comes out the same way: headings with a level, paragraphs, list items and
table rows, each with the page it came from, running headers, footers and page numbers
removed, and sentences cut by a line or page break joined again. The segmenter reads
blocks and never the file.

`read` opens a file and hands it to its format's reader: `pdf` (with `pdf_words`, the words
and lines of a page and its cover tables, and `pdf_layout`, its columns, margin labels and
reading order), `word` (DOCX) and `markup` (HTML and Markdown). Each builds its blocks with
`blocks` (the Block type, cleaning, the accounting's spans); `cleanup` then takes out what
every format repeats on its pages and joins sentences the layout cut.
"""
