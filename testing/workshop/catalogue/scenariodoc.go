package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseDoc reads a scenario's doc comment, whose paragraphs are:
//
//	Title: behaviour.
//
//	Lesson: ...
//
//	Source: <one of sources' names>, <where in it>: ...
//
//	By hand: ... (the rest, code indented)
func parseDoc(doc string) (scenario, error) {
	var s scenario
	title, rest, ok := strings.Cut(doc, "\n\n")
	if !ok {
		return s, errors.New("doc comment has one paragraph; want paragraphs Title: behaviour, Lesson, Source, By hand")
	}
	s.Title, s.Behaviour, ok = strings.Cut(oneLine(title), ": ")
	if !ok {
		return s, fmt.Errorf("first line %q is not \"Title: behaviour\"", title)
	}
	for para := range strings.SplitSeq(rest, "\n\n") {
		para = strings.TrimSpace(para)
		switch {
		case strings.HasPrefix(para, "Lesson: "):
			s.Lesson = capitalise(oneLine(strings.TrimPrefix(para, "Lesson: ")))
		case strings.HasPrefix(para, "Source: "):
			var err error
			if s.Source, s.Where, err = parseSource(oneLine(strings.TrimPrefix(para, "Source: "))); err != nil {
				return s, fmt.Errorf("scenario %q: %w", s.Title, err)
			}
		case strings.HasPrefix(para, "By hand"):
			s.ByHand = strings.TrimSpace(rest[strings.Index(rest, "By hand"):])
		}
	}
	if s.Lesson == "" || s.Source.name == "" || s.ByHand == "" {
		return s, fmt.Errorf("scenario %q lacks a Lesson:, Source: or By hand: paragraph", s.Title)
	}
	return s, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}
