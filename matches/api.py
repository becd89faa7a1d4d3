"""Read API of matches: a match, its event log, its replayed state."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.permissions import can_see_private
from games.replay import ReplayError

from . import selectors
from .models import Match
from .serializers import (
    MatchEventSerializer,
    MatchSerializer,
    ReplayStepSerializer,
    SeatStderrSerializer,
)


class MatchDetailApi(generics.RetrieveAPIView):
    serializer_class = MatchSerializer
    queryset = Match.objects.prefetch_related("seats__version__bot")


class MatchEventListApi(generics.ListAPIView):
    """The match's event log in order, paginated (``limit``, ``offset``)."""

    serializer_class = MatchEventSerializer

    def get_queryset(self):
        self.match = get_object_or_404(Match, pk=self.kwargs["pk"])
        return selectors.match_events(match=self.match)

    def get_serializer_context(self) -> dict:
        # A shuffle's order holds every hidden card: shown only once the match is over.
        still_playing = self.match.status in (Match.Status.PENDING, Match.Status.RUNNING)
        return {**super().get_serializer_context(), "hide_card_orders": still_playing}


class MatchStateApi(APIView):
    """The match replayed from its log up to a step (the number of decisions applied)."""

    @extend_schema(
        parameters=[OpenApiParameter("step", int, description="Decisions applied; default 0.")],
        responses=ReplayStepSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        match = get_object_or_404(Match, pk=pk)
        step = _step_parameter(request)
        decisions = selectors.match_decisions(match=match)
        if step > len(decisions):
            raise ValidationError(
                {"step": f"the log holds {len(decisions)} decisions; step {step} is past its end"}
            )
        try:
            position = selectors.match_state_at(match=match, step=step)
        except ReplayError as error:
            raise ValidationError({"log": f"the stored log does not replay: {error}"}) from None
        except ValueError:
            # Only an empty log gets here: a pending match has no position yet, not even step 0.
            raise ValidationError({"log": "the match has not started: its log is empty"}) from None
        state = position.state
        finished = match.status == Match.Status.FINISHED
        body = {
            "step": step,
            "steps": len(decisions),
            "to_play": state.to_play,
            "scores": state.scores,
            "winner": state.winner,
            "last_decision": decisions[step - 1] if step else None,
            "public": position.public,
            # Hidden cards stay hidden while the match runs; afterwards every hand is shown.
            "observations": {str(seat): obs for seat, obs in enumerate(position.observations)}
            if finished
            else None,
        }
        return Response(ReplayStepSerializer(body).data)


def _step_parameter(request: Request) -> int:
    raw = request.query_params.get("step", "0")
    try:
        step = int(raw)
    except ValueError:
        raise ValidationError({"step": f"must be a non-negative integer, got {raw!r}"}) from None
    if step < 0:
        raise ValidationError({"step": f"must be a non-negative integer, got {raw!r}"})
    return step


class SeatStderrApi(APIView):
    """What a seat's bot wrote to stderr in a match: for the bot's owner and staff."""

    @extend_schema(responses=SeatStderrSerializer)
    def get(self, request: Request, pk: int, seat: int) -> Response:
        match = get_object_or_404(Match, pk=pk)
        match_seat = get_object_or_404(match.seats.select_related("version__bot"), seat=seat)
        bot = match_seat.version.bot
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        if not can_see_private(request.user, bot):
            raise PermissionDenied("only the bot's owner and staff see its stderr")
        body = {
            "match": match.pk,
            "seat": seat,
            "bot": str(bot),
            "version": match_seat.version.number,
            "stderr": selectors.seat_stderr(seat=match_seat),
        }
        return Response(SeatStderrSerializer(body).data)
