package turnlabel

import (
	"regexp"
	"strings"

	"github.com/pyharness/pyharness/schemas"
)

// codeRule is the wording that marks one guard's message. The patterns are
// matched against the message in lower case, with fenced blocks (file
// contents, test output) taken out, so that what a file says is never read
// as what the harness said.
type codeRule struct {
	code schemas.Code
	re   *regexp.Regexp
}

// codeRules are tried in order; the first that matches gives the code. The
// order matters where wordings overlap: a read-before-patch message speaks of
// a FIND block, a skill-repeated one of an answer that has not changed.
var codeRules = []codeRule{
	{schemas.CodeSuiteBroken, re(`broke(n)? (the |your )?(test )?suite|suite broken|(passed|green) before .*(fail|red)|was green|now red|tests passed before|your (last )?write broke|broke tests|regress|(tests|that) (were|was) passing (now )?fail|passing tests (are|now) fail|(tests?|suite) (that )?(passed|passing) before`)},
	{schemas.CodeEmptyReply, re(`reply was empty|empty (reply|response|answer)|blank (reply|response)|nothing came back|answer was empty|(only|just) thought|spent it thinking|wrote no action|no content|nothing in it|empty (message|completion)`)},
	{schemas.CodeRunTestsFirst, re(`run (the )?(tests?|suite) (before|first|after)|tests? first|(haven't|have not|not) (yet )?run the (tests?|suite)|tests? (have|has) not been run|before running the (suite|tests?)|after a test run|without running the (tests?|suite)|(run|execute|verify)[^.]{0,30}(tests?|suite)[^.]{0,30}(before|first)|(suite|tests?) (hasn't|has not|haven't|have not) (been )?run|no test run since`)},
	{schemas.CodeReadBeforePatch, re(`read (the file |it )?(before|first)|before patching|(without|before) reading|(can't|cannot) patch|read \S+ before you (patch|edit)|open \S+ before you (edit|patch)|(have not|haven't|never) (been )?read|look at the file .*before you patch|(never|not) (looked at|seen|opened)|(view|inspect|open) (it|\S+) (first|before)|unseen files?|must be read`)},
	{schemas.CodeSkillRepeated, re(`already ran (that |the |this )?skill|skill .*already (run|ran|made)|same skill|earlier skill call|(locate|outline|scaffold-test) call was already|ran (locate|outline|scaffold-test) .*already|(skill|helper) invocation is a repeat|already executed with these arguments|same (helper|name|input|arguments)[^.]{0,30}(same|before)`)},
	{schemas.CodeTooLateToAsk, re(`too late to ask|no questions after|without asking|questions are only allowed before|(can't|cannot) ask now|past the point of asking|(ask|asking|questions?)[^.]{0,40}(before you started|already (been )?(modified|written|changed)|once you have made|at this stage)|asking is closed`)},
	{schemas.CodeNoAnswer, re(`nobody (is here|is watching|can answer)|no one (is here|is watching|can answer)|no human|goes unanswered|no answer came|decide for yourself|use your (own )?judge?ment|unattended|no one to ask|no user|nobody will reply|cannot be answered|batch mode`)},
	{schemas.CodeOutsideScope, re(`outside (the |its |this |of the )?(scope|area|allowed)|out of scope|not (with)?in (the )?(allowed )?scope|not within --scope|only touch files under|beyond what this run may|leaves the repository|is an absolute path|version-control data|not permitted|off limits|escapes the workspace|permitted paths|not inside`)},
	{schemas.CodeWrongFile, re(`wrong file|not (one of )?the files? (this|the) task|not a (file|target) (this task|of (the|this) task)|not a target|targets are|only touches|write to the target|leave \S+ alone|not (among|one of) the (task's )?targets?|task (didn't|did not) ask you to change|stay on the file|only (touches|changes?) `)},
	{schemas.CodeFindNotFound, re(`\bfind\b:?` + "`?" + `[^.]{0,40}(is not in|isn't in|not in the file|doesn't (appear|match)|don't match|does not (appear|match))|no match for the find|search text (doesn't|does not|isn't)|from memory|(couldn't|could not|can't|cannot) locate the text|snippet .*(is not in|isn't in)|(find|search|before)\b[^.]{0,30}(not found|does not occur|doesn't occur|doesn't match|does not match)|no (exact )?occurrence`)},
	{schemas.CodeRepeatRead, re(`already read|(hasn't|has not) changed since|read it again|reading the same file|already shown|as it was when you (opened|read)|(seen|displayed|shown|read) (this|that|the) file already|already (displayed|shown|seen)|re-?reading|identical to what you read`)},
	{schemas.CodeRepeatPatch, re(`already applied|identical to (a|the) (patch|change|write|edit)|same edit again|already in the file|leaves (the file|\S+) exactly as it is|exact change (before|again)|duplicate (patch|edit|write)|changes nothing|(edit|change|patch) has been made already|re-?applying|no-?op|would stay the same|already has exactly`)},
	{schemas.CodeDeletedSubject, re(`keep the function|(deletes|removes|removed|drops|deleted) [^.]{0,40}(function|subject)|function (you are|you were|it was) (fixing|sent to fix|asked to fix|supposed to)|function under repair|(don't|do not) remove the function|which the task asks you to fix|no longer contains|(function|target)[^.]{0,30}(removed|deleted|must survive)|rather than deleting|function being repaired`)},
	{schemas.CodeQuoteRequired, re(`quote (a|the) line|quoting it|quote from the file|cite the (exact )?line|show the line that|line that makes (it|the code|so)|already (correct|right)|paste the line|verbatim line|line of code that already|no evidence|nothing needs to change`)},
	{schemas.CodeNameMissing, re(`not (actually )?there|(is|are) (still )?not defined|isn't defined|(doesn't|does not) exist yet|missing name|name the task requires|task asks for|(has not|hasn't|not) been defined|undefined|definition of \S+|requires is missing|required (symbol|name|function)`)},
	{schemas.CodeVagueName, re(`says nothing|meaningful name|descriptive name|too vague|tells the reader nothing|rename \S+ to say|name it for its job|descriptive|uninformative|clearer name|hide what|names like`)},
	{schemas.CodeModuleTwice, re(`written twice|duplicates? (one|a module|the module)|copy of the module|defines (the same|\S+ again)|already created a module|duplicate module|keep one module|module with these definitions|duplicat|(two|another) new modules?|repeats code from a file you created|same definitions`)},
	{schemas.CodeBadSkill, re(`unknown skill|no skill (named|called)|skill (failed|error)|skill does not exist|skill could not run|skill \S+ takes|the skills are|(helper|skill) \S*\s?(isn't|is not) available|unknown helper|expects a (file|path|name)|available skills`)},
	{schemas.CodeNoSuchFile, re(`no such file|(does not|doesn't) exist|there is no file|file not found|(can't|cannot) find (that|the) file|there is no line \d+|not present|isn't there|hasn't been created|nothing to read`)},
}

// parseFailureRule marks a message saying the draft held no readable
// action: a word for "could not read" near a word for an action or its
// format.
var parseFailureRule = re(`(did not|didn't|could not|couldn't) parse|(did not|didn't|could not|couldn't|unable to|wasn't able to|failed to) (parse|read|understand|find)[^.]{0,30}\b(action|command|reply|response|message|that)|unpars(e)?able|parse error|no (valid |recogni[sz]ed )?(command|action)s? (found|recogni[sz]ed|in)|(no|invalid|unknown) (action|command)|(format|syntax) error|(action|command) (syntax|format)|(doesn't|does not|didn't|did not) (follow|match) (the|any)[^.]{0,20}(protocol|format|accepted)|had no action|expected an action|could not be read as an action|must contain (exactly )?one action`)

// toolResultHead marks the start of a tool result as harnesses write them:
// a test summary or run, a file shown or written, a skill's answer, the
// person's answer.
var toolResultHead = re(`^(tests?:|test (output|run|results?)|ran \d+ tests?|\d+ tests? (ran|passed|failed)|all \d+ tests? pass|\$ |wrote |created |saved |file saved|ok\b|patch applied|contents of |here is |output of |result of |the (person|user) (answered|says)|failed:|(locate|outline|scaffold-test) \S+:|\S+ \(lines \d+-\d+ of \d+\)|\S+, lines \d+-\d+|[\w./-]+\.\w+:$)`)

// refusalCue marks a message that says no, or tells the model what to do
// instead, when no guard's wording names its code: the generic words of a
// refusal or a nudge.
var refusalCue = re(`\b(refused|rejected|denied|not (allowed|permitted|accepted|available|present|inside|there)|off limits|skipped|must|please|instead|already|again|repeat|duplicate|missing|undefined|invalid|unknown|empty|no one|nobody|too late|first|before you|don't|do not|can't|cannot|won't|isn't|aren't|hasn't|haven't|never|no longer|regress|should|need to|make sure|avoid|rather than|expects|unchanged|not (been|yet)|nothing)`)

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// byRules labels what a turn was sent from its text alone: the turn's
// step and the messages recorded as sent at it. Step 1, and a prompt that
// holds a system message and no reply of the model's, is the opening; a
// harness message is a parse failure, a refusal or nudge (with the code its
// wording names), or a tool result.
func byRules(step int, msgs []schemas.Message) Label {
	l := Label{From: FromRules}
	if step <= 1 || isOpening(msgs) {
		l.Kind = schemas.KindOpening
		return l
	}
	l.Kind, l.Code = classifyFeedback(Feedback(msgs))
	return l
}

func isOpening(msgs []schemas.Message) bool {
	system := false
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			return false
		case "system":
			system = true
		}
	}
	return system
}

// classifyFeedback labels one harness message.
func classifyFeedback(text string) (schemas.Kind, schemas.Code) {
	// pyharness's own marker, for traces of builds that wrote the message
	// but not the code.
	for _, line := range strings.Split(text, "\n") {
		if c, _, ok := cutCodeMarker(line); ok {
			if c == schemas.CodeParseFailed {
				return schemas.KindParseFailure, c
			}
			return schemas.KindRefusalOrNudge, c
		}
	}
	t := normalize(text)
	t = strings.TrimSpace(strings.TrimPrefix(t, "[harness]"))
	if t == "" {
		return schemas.KindToolResult, ""
	}
	broken := codeRules[0]
	if broken.re.MatchString(t) {
		return schemas.KindRefusalOrNudge, broken.code
	}
	if toolResultHead.MatchString(t) {
		return schemas.KindToolResult, ""
	}
	if parseFailureRule.MatchString(t) {
		// An empty reply is a nudge of its own, though it also has no action.
		if r := codeRules[1]; r.re.MatchString(t) {
			return schemas.KindRefusalOrNudge, r.code
		}
		return schemas.KindParseFailure, schemas.CodeParseFailed
	}
	for _, r := range codeRules[1:] {
		if r.re.MatchString(t) {
			return schemas.KindRefusalOrNudge, r.code
		}
	}
	if refusalCue.MatchString(t) {
		return schemas.KindRefusalOrNudge, ""
	}
	return schemas.KindToolResult, ""
}

// normalize lowers a message, takes fenced blocks out, and folds runs of
// white space into one space.
func normalize(text string) string {
	var b strings.Builder
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		b.WriteString(trimmed)
		b.WriteByte(' ')
	}
	return strings.Join(strings.Fields(strings.ToLower(b.String())), " ")
}
